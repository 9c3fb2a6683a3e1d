package model

import (
	"fmt"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/fused"
	"github.com/deathstacks/deathstacks/model/internal/graph"
	G "gorgonia.org/gorgonia"
)

// runner is one compiled inference graph and what runs it: the stock
// graph's machine or the fused graph's fused.Run.
type runner struct {
	net   *graph.Net
	vm    G.VM
	fused *fused.Run
	xs    []float32 // the input's backing slice
}

// engine runs a network's inference graphs: the fused graph, compiled
// for maxBatch positions and run on as many as a batch has, or
// gorgonia's stock graph of the same network if stock, compiled lazily
// per batch size. It belongs to one goroutine at a time (a TapeMachine is not safe
// for concurrent use). Its graphs share one private copy of the weights,
// refreshed from the network before a run whenever a training step has
// changed them, so a training step never writes memory a run reads; the
// fused graph's convolutions read them repacked into the kernels' layout.
type engine struct {
	src      *Network
	maxBatch int
	stock    bool
	version  uint64
	weights  [][]float32
	packed   *fused.Net
	runners  map[int]*runner
}

func newEngine(src *Network, maxBatch int, stock bool) *engine {
	e := &engine{src: src, maxBatch: maxBatch, stock: stock, runners: map[int]*runner{}, packed: fused.NewNet(src.cfg.dims(), false)}
	e.weights = src.copyWeights(nil, &e.version)
	e.packed.Load(e.weights)
	return e
}

// compile compiles the graph for maxBatch now, rather than in the first
// call's time: a timed search's first move would spend most of a short
// budget on it.
func (e *engine) compile() error {
	_, err := e.runner(e.batchFor(e.maxBatch))
	return err
}

// batchFor is the compiled batch size that runs n <= maxBatch positions:
// for the stock graph the next power of two, or maxBatch itself; the
// fused graph's is maxBatch.
func (e *engine) batchFor(n int) int {
	if !e.stock {
		return e.maxBatch
	}
	b := 1
	for b < n {
		b *= 2
	}
	return min(b, e.maxBatch)
}

func (e *engine) runner(batch int) (*runner, error) {
	if r, ok := e.runners[batch]; ok {
		return r, nil
	}
	graph.BuildMu.Lock()
	defer graph.BuildMu.Unlock()
	r := &runner{xs: make([]float32, batch*env.ObservationSize)}
	var err error
	if e.stock {
		if r.net, err = graph.NewNet(G.NewGraph(), e.src.cfg.arch(), batch, r.xs, e.weights); err == nil {
			r.vm = G.NewTapeMachine(r.net.G)
		}
	} else if r.net, err = graph.NewFastNet(G.NewGraph(), e.src.cfg.arch(), e.packed, batch, r.xs, e.weights); err == nil {
		r.fused, err = fused.NewRun(r.net.G)
	}
	if err != nil {
		return nil, err
	}
	e.runners[batch] = r
	return r, nil
}

// forward runs n <= maxBatch positions: fill writes their observations
// into the first n*ObservationSize values of xs. The stock graph runs its
// whole compiled batch, the rest of xs zeroed (padding rows are
// independent of the real ones); the fused graph computes n rows alone. It
// returns the outputs of the compiled batch, of which the first n rows
// are this run's, valid until the next call.
func (e *engine) forward(n int, fill func(xs []float32)) (batchOutput, error) {
	if v := e.src.version.Load(); v != e.version {
		e.weights = e.src.copyWeights(e.weights, &e.version)
		e.packed.Load(e.weights)
	}
	r, err := e.runner(e.batchFor(n))
	if err != nil {
		return batchOutput{}, err
	}
	fill(r.xs[:n*env.ObservationSize])
	if r.vm != nil {
		clear(r.xs[n*env.ObservationSize:])
	}
	if err := r.run(n); err != nil {
		return batchOutput{}, fmt.Errorf("run network: %w", err)
	}
	return outputs(r.net)
}

// evaluate implements the Evaluate contract (arguments already checked)
// in chunks of at most maxBatch positions.
func (e *engine) evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	for lo := 0; lo < len(values); lo += e.maxBatch {
		hi := min(len(values), lo+e.maxBatch)
		out, err := e.forward(hi-lo, func(xs []float32) {
			copy(xs, obs[lo*env.ObservationSize:hi*env.ObservationSize])
		})
		if err != nil {
			return err
		}
		for i := lo; i < hi; i++ {
			if err := out.write(priors[i], &values[i], i-lo, legal[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// run runs the runner's graph once, for n positions or more.
func (r *runner) run(n int) error {
	if r.fused != nil {
		return recovered(func() error { return r.fused.Run(n) })
	}
	return run(r.vm)
}

// run runs a machine from the start.
func run(vm G.VM) error {
	return recovered(func() error {
		vm.Reset()
		return vm.RunAll()
	})
}

// recovered calls f, turning a panic inside it (gorgonia's or an op's)
// into an error so that a server's callers are answered rather than left
// waiting.
func recovered(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gorgonia panicked: %v", r)
		}
	}()
	return f()
}

// batchOutput is one run's outputs: per batch row NumActions logits, in
// order, and a value.
type batchOutput struct {
	logits, values []float32
	order          graph.LogitOrder
}

// outputs returns the outputs of n's last run.
func outputs(n *graph.Net) (batchOutput, error) {
	logits, values, err := n.Outputs()
	return batchOutput{logits: logits, values: values, order: n.Order}, err
}

// write writes the priors and value of batch row.
func (o batchOutput) write(priors []float32, value *float32, row int, legal []env.Action) error {
	v := o.values[row]
	if !(v >= -1 && v <= 1) {
		return fmt.Errorf("evaluate: network value %v", v)
	}
	*value = v
	return graph.LegalSoftmax(priors, o.logits[row*env.NumActions:(row+1)*env.NumActions], o.order, legal)
}

// LegalSoftmax writes the priors the network's evaluator gives a
// position's legal actions, compact over legal, from its row of
// env.NumActions logits in action order: the softmax over the legal
// actions only, as [Server] and [Network] compute it. Outside evaluators
// (a network in another language) share it, so that the search sees their
// logits as it sees the network's. A NaN or +Inf legal logit, or only
// -Inf ones, is an error; a -Inf one beside finite ones gets no
// probability.
func LegalSoftmax(dst, logits []float32, legal []env.Action) error {
	return graph.LegalSoftmax(dst, logits, graph.ActionOrder, legal)
}

// checkEvaluate checks Evaluate's arguments against its contract.
func checkEvaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	n := len(values)
	switch {
	case len(obs) != n*env.ObservationSize:
		return fmt.Errorf("evaluate: %d observation values for %d positions, want %d", len(obs), n, n*env.ObservationSize)
	case len(legal) != n:
		return fmt.Errorf("evaluate: %d legal-action lists for %d positions", len(legal), n)
	case len(priors) != n:
		return fmt.Errorf("evaluate: %d prior slices for %d positions", len(priors), n)
	}
	for i, l := range legal {
		if len(l) == 0 {
			return fmt.Errorf("evaluate: position %d has no legal actions", i)
		}
		if len(priors[i]) != len(l) {
			return fmt.Errorf("evaluate: position %d: %d priors for %d legal actions", i, len(priors[i]), len(l))
		}
		for _, a := range l {
			if !a.Valid() {
				return fmt.Errorf("evaluate: position %d: action %d out of range", i, int(a))
			}
		}
	}
	return nil
}

// Engine evaluates positions with a network on its caller's goroutine,
// batching nothing itself: for a caller that makes its batches, such as
// the lanes of self-play (mcts/stepped.Drive), one engine a goroutine.
// Like a Server's workers, it runs the fused graph on a private copy of
// the weights that follows the network's training steps. It is not safe
// for concurrent use.
type Engine struct{ e *engine }

// NewEngine returns an engine of n for batches of up to maxBatch
// positions (a larger one runs in parts), its graph compiled.
func (n *Network) NewEngine(maxBatch int) (*Engine, error) {
	if maxBatch < 1 || maxBatch > 4096 {
		return nil, fmt.Errorf("new engine: batches of %d positions: want 1 to 4096", maxBatch)
	}
	e := newEngine(n, maxBatch, false)
	if err := e.compile(); err != nil {
		return nil, fmt.Errorf("new engine: %w", err)
	}
	return &Engine{e}, nil
}

// Evaluate implements mcts.Evaluator; see [Network.Evaluate] for the
// contract.
func (e *Engine) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	if err := checkEvaluate(obs, legal, priors, values); err != nil {
		return err
	}
	return e.e.evaluate(obs, legal, priors, values)
}
