package model

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/fused"
	"github.com/deathstacks/deathstacks/model/internal/graph"
	"github.com/deathstacks/deathstacks/model/internal/optim"
)

// directMaxBatch is the largest batch [Network.Evaluate] runs at once.
const directMaxBatch = 64

// Network is the policy and value network: its architecture and weights.
// It compiles no graph itself; a [Server], a [Trainer] and
// [Network.Evaluate] each compile their own and read the weights from it.
//
// All methods are safe for concurrent use, including a [Trainer] step
// running while a [Server] evaluates: evaluations see the weights of before
// or after the step, never a mixture.
type Network struct {
	cfg Config
	// Meta is free-form metadata saved in the file header (for example
	// iterations trained, date, rating). Set it before sharing the
	// network; it is not guarded.
	Meta map[string]string

	// mu guards weights and steps: a training step holds it to write them,
	// engines hold it shared to copy them.
	mu      sync.RWMutex
	weights [][]float32
	steps   int64
	// version counts weight changes, so engines know when to copy.
	version atomic.Uint64

	// direct holds the engines of Evaluate and EvaluateStock.
	direct struct {
		sync.Mutex
		fused, stock *engine
	}
}

// New returns a network of architecture cfg with initial weights drawn from
// rng: the same seed gives the same weights.
func New(cfg Config, rng *rand.Rand) (*Network, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("new network: %w", err)
	}
	return newNetwork(cfg, cfg.initParams(rng), 0, nil), nil
}

// FromWeights returns a network of architecture cfg with the given
// weights, as other languages hand them over: every tensor's values in
// the order of the network file (see the package documentation, "Files"),
// each tensor row-major, concatenated. steps is its training step count
// and meta its metadata (nil for none); both are copied, as the weights
// are. It returns an error, never a network, for an invalid cfg, a length
// that is not cfg's number of values ([ErrArchitecture]), a negative step
// count or a weight that is NaN or infinite; subnormal weights become 0,
// as they do when a file is read.
func FromWeights(cfg Config, flat []float32, steps int64, meta map[string]string) (*Network, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("network from weights: %w", err)
	}
	specs := cfg.specs()
	if want := graph.SumSizes(specs); len(flat) != want {
		return nil, fmt.Errorf("network from weights: %w: %d values, %v has %d", ErrArchitecture, len(flat), cfg, want)
	}
	if steps < 0 {
		return nil, fmt.Errorf("network from weights: %d training steps: want 0 or more", steps)
	}
	weights := make([][]float32, len(specs))
	for i, s := range specs {
		w := slices.Clone(flat[:s.Size()])
		flat = flat[s.Size():]
		for j, x := range w {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("network from weights: %s[%d] is %v", s.Name, j, x)
			}
		}
		weights[i] = w
	}
	return newNetwork(cfg, weights, steps, maps.Clone(meta)), nil
}

func newNetwork(cfg Config, weights [][]float32, steps int64, meta map[string]string) *Network {
	if meta == nil {
		meta = map[string]string{}
	}
	for _, w := range weights {
		optim.FlushSubnormals(w)
	}
	return &Network{cfg: cfg, weights: weights, steps: steps, Meta: meta}
}

// Config returns the network's architecture.
func (n *Network) Config() Config { return n.cfg }

// Steps returns the number of training steps applied to the weights.
func (n *Network) Steps() int64 {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.steps
}

// NumParams returns the number of learnable values.
func (n *Network) NumParams() int {
	total := 0
	for _, w := range n.weights {
		total += len(w)
	}
	return total
}

// Clone returns an independent copy of the network: weights, training step
// count and metadata.
func (n *Network) Clone() *Network {
	n.mu.RLock()
	defer n.mu.RUnlock()
	c := newNetwork(n.cfg, n.copyWeightsLocked(nil), n.steps, maps.Clone(n.Meta))
	return c
}

// CheckConfig reports, naming the first differing key, whether the network
// has architecture want: a resumed run must not silently continue with
// another network than its configuration asks for.
func (n *Network) CheckConfig(want Config) error {
	have := n.cfg
	for _, f := range []struct {
		key        string
		have, want int
	}{
		{"blocks", have.Blocks, want.Blocks},
		{"channels", have.Channels, want.Channels},
		{"value_planes", have.ValuePlanes, want.ValuePlanes},
		{"value_hidden", have.ValueHidden, want.ValueHidden},
		{"reply_head", b2i(have.ReplyHead), b2i(want.ReplyHead)},
		{"ownership_head", b2i(have.OwnershipHead), b2i(want.OwnershipHead)},
		{"score_head", b2i(have.ScoreHead), b2i(want.ScoreHead)},
	} {
		if f.have != f.want {
			return fmt.Errorf("network has model.%s %d, configuration asks for %d", f.key, f.have, f.want)
		}
	}
	return nil
}

// Deepen returns a copy of the network with blocks residual blocks, the
// added ones after its own, each starting as the identity (Net2Net's
// deepening, Chen et al. 2016): its first convolution drawn from rng as
// [New] draws it, its second convolution and both biases zero, so that
// the deeper network computes what n computes and training grows into the
// room. The copy keeps n's step count and metadata. A blocks below n's,
// or one [Config.Validate] refuses, is an error.
func (n *Network) Deepen(blocks int, rng *rand.Rand) (*Network, error) {
	cfg := n.cfg
	cfg.Blocks = blocks
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("deepen a %v network: %w", n.cfg, err)
	}
	if blocks < n.cfg.Blocks {
		return nil, fmt.Errorf("deepen a %v network to %d blocks: it has more", n.cfg, blocks)
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	have := n.copyWeightsLocked(nil)
	trunk := fused.TrunkParams(n.cfg.Blocks)
	weights := cfg.initParams(rng)[:fused.TrunkParams(blocks)]
	copy(weights, have[:trunk])
	for i := trunk; i < len(weights); i += 4 {
		clear(weights[i+2]) // w2: the branch adds nothing to the block's input
	}
	weights = append(weights, have[trunk:]...)
	return newNetwork(cfg, weights, n.steps, maps.Clone(n.Meta)), nil
}

// Blend moves the network's weights a share of the way to src's, each
// learnable w becoming w + share*(s - w) for src's s: one step of an
// exponential moving average of src over its training, such as a run's
// player (see package train). Its step count becomes src's, its metadata
// stays. src must have n's architecture and share be in (0, 1]; share 1
// copies src's weights exactly.
func (n *Network) Blend(src *Network, share float32) error {
	if src.cfg != n.cfg {
		return fmt.Errorf("blend a %v network into a %v one: %w", src.cfg, n.cfg, ErrArchitecture)
	}
	if !(share > 0 && share <= 1) {
		return fmt.Errorf("blend networks: share %v: want more than 0 and at most 1", share)
	}
	var version uint64
	from := src.copyWeights(nil, &version)
	steps := src.Steps()
	n.mu.Lock()
	defer n.mu.Unlock()
	for i, w := range n.weights {
		if share == 1 {
			copy(w, from[i])
			continue
		}
		for j, s := range from[i] {
			w[j] += share * (s - w[j])
		}
		optim.FlushSubnormals(w)
	}
	n.steps = steps
	n.version.Add(1)
	return nil
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// WithoutAux returns the network without its auxiliary heads (see
// [Config]), which inference never uses: a copy with the same weights,
// step count and metadata otherwise, or the network itself if it has none.
// Exported players and other languages get this form.
func (n *Network) WithoutAux() *Network {
	if !n.cfg.HasAux() {
		return n
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	cfg := n.cfg.withAuxBits(0)
	weights := n.copyWeightsLocked(nil)[:cfg.inferenceParams()]
	return newNetwork(cfg, weights, n.steps, maps.Clone(n.Meta))
}

// Evaluate implements the search's evaluator contract (mcts.Evaluator):
// for each of the len(values) positions it writes the probabilities of its
// legal actions into priors[i] (compact over legal[i], exactly zero
// probability elsewhere) and its value for the side to move into values[i].
// Calls are serialised on one set of compiled graphs; for many concurrent
// searches use a [Server], which batches them.
func (n *Network) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	return n.evaluateDirect(false, obs, legal, priors, values)
}

// EvaluateStock is Evaluate on gorgonia's stock graph of the network
// (im2col convolutions and one node per bias, addition and ReLU) instead
// of the fused one: the same results up to rounding, for comparisons
// ("deathstacks bench nn --compare") and tests.
func (n *Network) EvaluateStock(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	return n.evaluateDirect(true, obs, legal, priors, values)
}

func (n *Network) evaluateDirect(stock bool, obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	if err := checkEvaluate(obs, legal, priors, values); err != nil {
		return err
	}
	n.direct.Lock()
	defer n.direct.Unlock()
	e := &n.direct.fused
	if stock {
		e = &n.direct.stock
	}
	if *e == nil {
		*e = newEngine(n, directMaxBatch, stock)
	}
	return (*e).evaluate(obs, legal, priors, values)
}

// copyWeights copies the weights into dst (allocated if nil) and records
// the version copied.
func (n *Network) copyWeights(dst [][]float32, version *uint64) [][]float32 {
	n.mu.RLock()
	defer n.mu.RUnlock()
	*version = n.version.Load()
	return n.copyWeightsLocked(dst)
}

func (n *Network) copyWeightsLocked(dst [][]float32) [][]float32 {
	if dst == nil {
		dst = make([][]float32, len(n.weights))
		for i, w := range n.weights {
			dst[i] = make([]float32, len(w))
		}
	}
	for i, w := range n.weights {
		copy(dst[i], w)
	}
	return dst
}
