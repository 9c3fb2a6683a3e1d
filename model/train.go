package model

import (
	"fmt"
	"math"
	"sync"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/graph"
	"github.com/deathstacks/deathstacks/model/internal/optim"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Sample is one training example.
type Sample struct {
	// Obs is the position's observation (env.ObservationSize values).
	Obs []float32
	// Legal lists the position's legal actions, none repeated.
	Legal []env.Action
	// Policy is the target distribution, compact over Legal (Policy[j] is
	// the probability of Legal[j]); it must sum to 1.
	Policy []float32
	// Value is the game's result for the side to move: 1, -1 or 0 (any
	// value in [-1, 1] is accepted).
	Value float32

	// The targets of the auxiliary heads (see [Config]) and of surprise
	// weighting, each optional: a sample without one (nil, or Final
	// false) adds nothing to that head's loss.
	//
	// ReplyLegal and Reply are the opponent's reply: the next position's
	// legal actions and its search's policy target (a fast search's, under
	// playout cap randomization), compact as Legal and Policy; nil when no
	// searched position followed.
	ReplyLegal []env.Action
	Reply      []float32
	// Ownership is the final owner of each square (env's square order)
	// from the side to move's view: +1 its own stack on top, -1 the
	// opponent's, 0 empty; nil when not recorded.
	Ownership []float32
	// Score is the final material lead of the side to move as
	// tanh(lead / 60), the greedy player's units; valid when Final is set.
	Score float32
	// Final says Score holds a target.
	Final bool
	// Surprise is how much the search's target differed from the
	// network's prior, KL(Policy || prior) in nats, for surprise-weighted
	// sampling; 0 when not recorded.
	Surprise float32
}

// Losses are one training step's loss parts, measured before the update.
type Losses struct {
	// Policy is the mean cross-entropy of the network's policy (a softmax
	// over the legal actions only) against the targets.
	Policy float64
	// Value is the mean squared error of the value.
	Value float64
	// L2 is WeightDecay times the sum of the squared weights; 0 under
	// AdamW, whose decay is not part of the loss.
	L2 float64
	// Reply, Ownership and Score are the auxiliary heads' losses (0 for a
	// network without them): the reply's cross-entropy and the mean
	// squared errors of the ownership (over squares) and of the score.
	Reply, Ownership, Score float64
	// SoftPolicy is the cross-entropy against the soft policy target (0
	// unless TrainConfig.SoftPolicyWeight is set).
	SoftPolicy float64
	// Total is Policy + ValueWeight*Value + the weighted auxiliary and soft
	// policy losses + L2, the minimised loss.
	Total float64
	// Entropy is the mean entropy of the network's policy.
	Entropy float64
	// LR is the learning rate the step used.
	LR float64
}

// Trainer runs training steps on a network. Its graphs are separate from
// the inference graphs and bound to the network's own weight arrays; a
// step updates them under the network's lock, and inference engines copy
// them before their next run. A Trainer belongs to one goroutine: Step
// must not be called concurrently (with itself or with WriteTo), but
// servers and Network.Evaluate may run meanwhile.
//
// A batch is split in trainShards parts, each with a graph of its own:
// their forward and backward passes run at once, one goroutine each, and
// their gradients are averaged, weighted by their samples. The split is
// the same on every machine, so a step's result does not depend on the
// number of cores.
type Trainer struct {
	net    *Network
	cfg    TrainConfig
	opt    *optim.State
	decay  []bool
	shards []*graph.TrainShard
	// half splits the learnables in two runs of about equal size (see
	// inHalves).
	half int
	// l2 is the sum of the squares of the weights after the last step.
	l2 weightSquares
}

// trainShards is the number of parts a batch is split in: one a core of
// the machines this is made for.
const trainShards = 2

// NewTrainer returns a trainer of net with a fresh optimiser state.
func NewTrainer(net *Network, cfg TrainConfig) (*Trainer, error) {
	return newTrainer(net, cfg, nil, false)
}

// NewStockTrainer is NewTrainer on gorgonia's stock graph and gradients
// instead of the fused ops' (see [Network.EvaluateStock]): the same steps
// up to rounding, for comparisons ("deathstacks bench nn --compare") and
// tests.
func NewStockTrainer(net *Network, cfg TrainConfig) (*Trainer, error) {
	return newTrainer(net, cfg, nil, true)
}

func newTrainer(n *Network, cfg TrainConfig, opt *optim.State, stock bool) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("new trainer: %w", err)
	}
	specs := n.cfg.specs()
	if opt == nil {
		opt = optim.New(cfg.adam(), graph.Sizes(specs))
	} else if opt.Adam != cfg.adam() {
		return nil, fmt.Errorf("new trainer: saved optimiser state is %s, configuration asks for %s", optimizerName(opt), cfg.Optimizer)
	}
	t := &Trainer{
		net:   n,
		cfg:   cfg,
		opt:   opt,
		decay: make([]bool, len(specs)),
	}
	total, size := graph.SumSizes(specs), 0
	for i, s := range specs {
		t.decay[i] = s.Decay
		if size < total/2 {
			t.half = i + 1
		}
		size += s.Size()
	}
	bs := cfg.BatchSize
	parts := min(bs, trainShards)
	for k, first := 0, 0; k < parts; k++ {
		rows := (bs - first) / (parts - k)
		sh, err := graph.NewTrainShard(n.cfg.arch(), cfg.lossWeights(), first, rows, n.weights, stock)
		if err != nil {
			return nil, fmt.Errorf("new trainer: %w", err)
		}
		t.shards = append(t.shards, sh)
		first += rows
	}
	return t, nil
}

// Network returns the network being trained.
func (t *Trainer) Network() *Network { return t.net }

// Step trains on one batch of exactly the config's BatchSize samples and
// returns the losses measured before the update. The same network, seed
// and batches give the same weights.
func (t *Trainer) Step(batch []Sample) (Losses, error) {
	if err := t.check(batch); err != nil {
		return Losses{}, err
	}
	l, grads, err := t.gradients(batch)
	if err != nil {
		// Start every step, successful or not, from zero gradients (see
		// zeroGrads); a successful one clears them as it uses them.
		t.zeroGrads()
		return Losses{}, err
	}
	n := t.net
	if !t.cfg.decoupled() {
		l.L2 = t.cfg.WeightDecay * t.squaredWeights()
	}
	l.Total = l.Policy + t.cfg.ValueWeight*l.Value + t.cfg.auxTotal(l) + l.L2
	if math.IsNaN(l.Total) || math.IsInf(l.Total, 0) {
		t.zeroGrads()
		return l, fmt.Errorf("training step %d: loss is %v (policy %v, value %v); weights left unchanged", n.Steps(), l.Total, l.Policy, l.Value)
	}
	// One pass over each learnable, a section at a time so that its
	// arrays stay in L1: the shards' mean gradient, the update, the
	// gradients cleared for the next run (the stock graphs'), and the
	// updated weights' squares for the next step's L2 term.
	squares := make([]float64, len(t.decay))
	n.mu.Lock()
	l.LR = t.cfg.learningRate(t.opt.T)
	update := t.opt.Begin(t.cfg.optimSettings(), l.LR)
	t.inHalves(func(i int) {
		w := n.weights[i]
		var sq sumSquares
		for lo := 0; lo < len(w); lo += updateSection {
			hi := min(lo+updateSection, len(w))
			update.Apply(i, lo, w[lo:hi], grads.mean(i, lo, hi), t.decay[i])
			grads.clear(i, lo, hi)
			if t.decay[i] {
				sq.add(w[lo:hi])
			}
		}
		squares[i] = sq.sum()
	})
	n.steps++
	t.l2 = weightSquares{version: n.version.Add(1), sum: total(squares), valid: true}
	n.mu.Unlock()
	return l, nil
}

// updateSection is the number of values of a learnable that Step's pass
// takes at a time: the section's gradients, weights and moments (five
// arrays of 4 KB) stay in L1. A multiple of sumSquares' width, so that
// the sum of the squares is the same in sections as in one piece.
const updateSection = 1024

// weightSquares is the sum of the squares of the weights that decay, as
// of the network's weight version.
type weightSquares struct {
	version uint64
	sum     float64
	valid   bool
}

// squaredWeights returns the sum of the squares of the weights that
// decay: the last step's, unless the weights have changed since.
func (t *Trainer) squaredWeights() float64 {
	// Only this goroutine writes the weights, so reading them unlocked is
	// safe; Step's update takes the lock because engines copy them.
	if t.l2.valid && t.l2.version == t.net.version.Load() {
		return t.l2.sum
	}
	squares := make([]float64, len(t.decay))
	t.inHalves(func(i int) {
		if t.decay[i] {
			var sq sumSquares
			sq.add(t.net.weights[i])
			squares[i] = sq.sum()
		}
	})
	return total(squares)
}

// total is the sum of x in order.
func total(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s
}

// sumSquares sums the squares of float32 values in float64, in four
// running sums (one sum's additions wait on each other; four overlap).
type sumSquares [4]float64

// add adds the squares of x. Values after the last whole four are added
// to the first sum: calls with lengths that are multiples of four, then
// one of any length, give the sum of one call on all the values.
func (s *sumSquares) add(x []float32) {
	a, b, c, d := s[0], s[1], s[2], s[3]
	n := len(x) / 4 * 4
	for j := 0; j < n; j += 4 {
		q := x[j : j+4 : j+4]
		a += float64(q[0]) * float64(q[0])
		b += float64(q[1]) * float64(q[1])
		c += float64(q[2]) * float64(q[2])
		d += float64(q[3]) * float64(q[3])
	}
	for _, v := range x[n:] {
		a += float64(v) * float64(v)
	}
	*s = sumSquares{a, b, c, d}
}

func (s *sumSquares) sum() float64 { return (s[0] + s[1]) + (s[2] + s[3]) }

// gradients runs the shards' graphs on batch, already checked, at once,
// and returns the policy, value and entropy parts of the losses and the
// shards' gradients of the policy and value loss (without the L2 term),
// valid until they are cleared.
func (t *Trainer) gradients(batch []Sample) (Losses, shardGrads, error) {
	parts := make([]shardResult, len(t.shards))
	var wg sync.WaitGroup
	for k := 1; k < len(t.shards); k++ {
		wg.Go(func() { parts[k] = shardGradients(t.shards[k], batch) })
	}
	parts[0] = shardGradients(t.shards[0], batch)
	wg.Wait()
	var l Losses
	grads := shardGrads{parts: make([][][]float32, len(parts)), share: make([]float32, len(parts)), accumulated: t.shards[0].VM != nil}
	for k, p := range parts {
		if p.err != nil {
			return Losses{}, shardGrads{}, fmt.Errorf("training step %d: %w", t.net.Steps(), p.err)
		}
		w := float64(t.shards[k].Rows) / float64(len(batch))
		l.Policy += w * p.losses.Policy
		l.Value += w * p.losses.Value
		l.Entropy += w * p.losses.Entropy
		l.Reply += w * p.losses.Reply
		l.Ownership += w * p.losses.Ownership
		l.Score += w * p.losses.Score
		l.SoftPolicy += w * p.losses.SoftPolicy
		grads.parts[k] = p.grads
		grads.share[k] = float32(t.shards[k].Rows) / float32(len(batch))
	}
	return l, grads, nil
}

// shardGrads are the shards' gradients of one batch, each learnable's
// arrays in the shards' graphs.
type shardGrads struct {
	parts [][][]float32 // per shard, per learnable
	share []float32     // each shard's samples over the batch's
	// accumulated says the arrays are the stock graphs' machines' dual
	// values, which add each run's gradients to what they hold.
	accumulated bool
}

// mean returns the mean gradient of values lo to hi of learnable i, the
// shards' gradients weighted by their samples, written over the first
// shard's (a lone shard's weight is 1).
func (s shardGrads) mean(i, lo, hi int) []float32 {
	g := s.parts[0][i][lo:hi]
	if len(s.parts) == 1 {
		return g
	}
	w0 := s.share[0]
	for j := range g {
		g[j] *= w0
	}
	for k := 1; k < len(s.parts); k++ {
		w := s.share[k]
		for j, x := range s.parts[k][i][lo:hi] {
			g[j] += w * x
		}
	}
	return g
}

// clear zeroes values lo to hi of every shard's gradient of learnable i
// if the arrays accumulate.
func (s shardGrads) clear(i, lo, hi int) {
	if !s.accumulated {
		return
	}
	for _, p := range s.parts {
		clear(p[i][lo:hi])
	}
}

// inHalves runs f for every learnable's index, those before t.half on
// another goroutine: the parts of a step outside the graphs (the L2 term
// after a change of weights, the update) use two cores. Each learnable's
// work is the same on either goroutine.
func (t *Trainer) inHalves(f func(i int)) {
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range t.half {
			f(i)
		}
	})
	for i := t.half; i < len(t.decay); i++ {
		f(i)
	}
	wg.Wait()
}

// shardResult is what one shard's run gives: its part's mean losses and
// its gradients.
type shardResult struct {
	losses Losses
	grads  [][]float32
	err    error
}

// shardGradients loads the shard's part of batch, already checked, and
// runs the shard's graph on it.
func shardGradients(sh *graph.TrainShard, batch []Sample) shardResult {
	loadShard(sh, batch[sh.First:sh.First+sh.Rows])
	if sh.Run != nil {
		if err := recovered(sh.Run.RunAll); err != nil {
			return shardResult{err: err}
		}
	} else if err := run(sh.VM); err != nil {
		return shardResult{err: err}
	}
	var l Losses
	var err error
	if l.Policy, err = sh.Scalar(sh.PolLoss); err != nil {
		return shardResult{err: err}
	}
	if l.Value, err = sh.Scalar(sh.ValLoss); err != nil {
		return shardResult{err: err}
	}
	if err := auxLosses(&sh.Aux, sh.Scalar, &l); err != nil {
		return shardResult{err: err}
	}
	if sh.PolOp != nil {
		l.Entropy = sh.PolOp.Entropy()
	} else {
		out, err := outputs(sh.Fwd)
		if err != nil {
			return shardResult{err: err}
		}
		if l.Entropy, err = meanEntropy(out, batch[sh.First:sh.First+sh.Rows]); err != nil {
			return shardResult{err: fmt.Errorf("%w; weights left unchanged", err)}
		}
	}
	grads := make([][]float32, len(sh.Fwd.Params))
	for i, p := range sh.Fwd.Params {
		var gv G.Value
		if sh.Run != nil {
			gv = sh.Run.Value(sh.Grads[i])
		} else if gv, err = p.Grad(); err != nil {
			return shardResult{err: fmt.Errorf("gradient of %s: %w", p.Name(), err)}
		}
		t, ok := gv.(tensor.Tensor)
		if ok {
			grads[i], ok = t.Data().([]float32)
		}
		if !ok || len(grads[i]) != p.Shape().TotalSize() {
			return shardResult{err: fmt.Errorf("gradient of %s is not %v float32 values", p.Name(), p.Shape())}
		}
	}
	return shardResult{losses: l, grads: grads}
}

// zeroGrads clears the stock graphs' gradients: their machines add each
// run's gradients to what the learnables' dual values hold. The fused
// graphs' ops overwrite theirs.
func (t *Trainer) zeroGrads() {
	for _, sh := range t.shards {
		if sh.VM == nil {
			continue
		}
		for _, p := range sh.Fwd.Params {
			if g, err := p.Grad(); err == nil {
				if d, ok := g.Data().([]float32); ok {
					clear(d)
				}
			}
		}
	}
}

// check checks a batch: its size and every sample.
func (t *Trainer) check(batch []Sample) error {
	if len(batch) != t.cfg.BatchSize {
		return fmt.Errorf("training step: %d samples, batch size is %d", len(batch), t.cfg.BatchSize)
	}
	for i, s := range batch {
		if err := s.Validate(); err != nil {
			return fmt.Errorf("training step: sample %d: %w", i, err)
		}
	}
	return nil
}

// loadShard writes part, checked, into the shard's inputs, the policy
// targets in the order of the graph's logits (the loss is the same in any
// order, as long as the logits and the targets agree).
func loadShard(sh *graph.TrainShard, part []Sample) {
	for i, s := range part {
		copy(sh.Xs[i*env.ObservationSize:], s.Obs)
		sh.Result[i] = s.Value
	}
	if !sh.Stock {
		t := &sh.Targets
		t.Index, t.Prob, t.End = t.Index[:0], t.Prob[:0], t.End[:0]
		for i, s := range part {
			for j, a := range s.Legal {
				t.Index = append(t.Index, int32(i*env.NumActions+sh.Fwd.Order.Index(a)))
				t.Prob = append(t.Prob, s.Policy[j])
			}
			t.End = append(t.End, len(t.Index))
		}
		loadAux(&sh.Aux, part, t)
		return
	}
	for i := range sh.NegMask {
		sh.NegMask[i] = graph.IllegalLogit
	}
	clear(sh.Target)
	for i, s := range part {
		mask := sh.NegMask[i*env.NumActions : (i+1)*env.NumActions]
		target := sh.Target[i*env.NumActions : (i+1)*env.NumActions]
		for j, a := range s.Legal {
			mask[a] = 0
			target[a] = s.Policy[j]
		}
	}
	loadAux(&sh.Aux, part, nil)
}

// policySumTolerance is how far a target policy's sum may be from 1: the
// search's float32 visit shares add up with rounding.
const policySumTolerance = 1e-3

// Validate reports what is wrong with a sample, if anything: the
// observation's size, no or repeated or out-of-range legal actions, a
// policy that is not a distribution over them, a value outside [-1, 1].
func (s Sample) Validate() error {
	switch {
	case len(s.Obs) != env.ObservationSize:
		return fmt.Errorf("%d observation values: want %d", len(s.Obs), env.ObservationSize)
	case len(s.Legal) == 0:
		return fmt.Errorf("no legal actions")
	case len(s.Policy) != len(s.Legal):
		return fmt.Errorf("%d policy values for %d legal actions", len(s.Policy), len(s.Legal))
	case !(s.Value >= -1 && s.Value <= 1):
		return fmt.Errorf("value %v: want -1 to 1", s.Value)
	}
	if err := checkPolicy(s.Legal, s.Policy); err != nil {
		return err
	}
	return s.validateAux()
}

// checkPolicy reports what is wrong with a policy target compact over
// legal, if anything.
func checkPolicy(legal []env.Action, policy []float32) error {
	var seen [(env.NumActions + 63) / 64]uint64
	var sum float64
	for j, a := range legal {
		if !a.Valid() {
			return fmt.Errorf("action %d: out of range", int(a))
		}
		if seen[a/64]&(1<<(a%64)) != 0 {
			return fmt.Errorf("action %d: listed twice", int(a))
		}
		seen[a/64] |= 1 << (a % 64)
		p := policy[j]
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("probability %v of action %d: want 0 to 1", p, int(a))
		}
		sum += float64(p)
	}
	if math.Abs(sum-1) > policySumTolerance {
		return fmt.Errorf("policy sums to %v: want 1", sum)
	}
	return nil
}

// meanEntropy is the mean entropy of the legal-action softmax of each
// sample's logits.
func meanEntropy(out batchOutput, batch []Sample) (float64, error) {
	var total float64
	var p []float32
	for i, s := range batch {
		if cap(p) < len(s.Legal) {
			p = make([]float32, len(s.Legal))
		}
		p = p[:len(s.Legal)]
		if err := graph.LegalSoftmax(p, out.logits[i*env.NumActions:(i+1)*env.NumActions], out.order, s.Legal); err != nil {
			return 0, err
		}
		for _, q := range p {
			if q > 0 {
				total -= float64(q) * math.Log(float64(q))
			}
		}
	}
	return total / float64(len(batch)), nil
}

// optimizerName is the configuration's name of o's kind.
func optimizerName(o *optim.State) string {
	if o.Adam {
		return adamName
	}
	return sgdName
}

// lossWeights are the weights of the loss's parts in c.
func (c TrainConfig) lossWeights() graph.LossWeights {
	return graph.LossWeights{Value: c.ValueWeight, Reply: c.ReplyWeight, Ownership: c.OwnershipWeight, Score: c.ScoreWeight,
		SoftPolicy: c.SoftPolicyWeight, SoftPolicyTemperature: c.SoftPolicyTemperature}
}

// optimSettings are the optimiser's part of c.
func (c TrainConfig) optimSettings() optim.Settings {
	return optim.Settings{Momentum: c.Momentum, Beta1: c.Beta1, Beta2: c.Beta2, Epsilon: c.Epsilon, WeightDecay: c.WeightDecay, Decoupled: c.decoupled()}
}

// adam reports that c's optimiser keeps Adam's state: Adam or AdamW.
func (c TrainConfig) adam() bool { return c.Optimizer == adamName || c.Optimizer == adamWName }

// decoupled reports that c's weight decay is AdamW's, outside the loss.
func (c TrainConfig) decoupled() bool { return c.Optimizer == adamWName }
