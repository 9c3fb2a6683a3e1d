package model

import (
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/fused"
)

// boardSide is the board's width and height in squares.
const boardSide = 6

// policyPlanes is the number of 6x6 logit planes of the policy head: one
// per (direction, count) pair, so that flattening them plane-major gives
// exactly the action index order of env.
const policyPlanes = env.NumActions / env.NumSquares

// paramSpec describes one learnable tensor.
type paramSpec struct {
	name  string
	shape []int
	// decay marks weights that the L2 term covers (biases are exempt).
	decay bool
	// std is the standard deviation of the initial normal values; 0 means
	// zeros.
	std float64
}

// dims is what the fused ops need of c.
func (c Config) dims() fused.Dims {
	d := fused.Dims{Channels: c.Channels, Blocks: c.Blocks, ValuePlanes: c.ValuePlanes, ValueHidden: c.ValueHidden}
	for _, s := range c.specs() {
		d.Shapes = append(d.Shapes, s.shape)
	}
	return d
}

// paramSizes lists the sizes of specs.
func paramSizes(specs []paramSpec) []int {
	sizes := make([]int, len(specs))
	for i, s := range specs {
		sizes[i] = s.size()
	}
	return sizes
}

// sumSizes is the number of values of specs.
func sumSizes(specs []paramSpec) int {
	total := 0
	for _, s := range specs {
		total += s.size()
	}
	return total
}

func (p paramSpec) size() int {
	n := 1
	for _, d := range p.shape {
		n *= d
	}
	return n
}

// specs lists the learnables of a network with this configuration, in the
// order the graphs take them and the file stores them.
func (c Config) specs() []paramSpec {
	ch := c.Channels
	he := func(fanIn int) float64 { return math.Sqrt(2 / float64(fanIn)) }
	conv := func(name string, out, in, k int, std float64) paramSpec {
		return paramSpec{name: name, shape: []int{out, in, k, k}, decay: true, std: std}
	}
	bias := func(name string, shape ...int) paramSpec {
		return paramSpec{name: name, shape: shape}
	}
	specs := []paramSpec{
		conv("stem.w", ch, env.NumPlanes, 3, he(env.NumPlanes*9)),
		bias("stem.b", 1, ch, 1, 1),
	}
	// Without normalisation, each residual branch's last convolution starts
	// scaled down by sqrt(blocks) (as in Fixup) so that the trunk's
	// activations do not grow with depth at initialisation.
	branch := he(ch*9) / math.Sqrt(float64(max(c.Blocks, 1)))
	for i := range c.Blocks {
		p := "block" + strconv.Itoa(i)
		specs = append(specs,
			conv(p+".w1", ch, ch, 3, he(ch*9)),
			bias(p+".b1", 1, ch, 1, 1),
			conv(p+".w2", ch, ch, 3, branch),
			bias(p+".b2", 1, ch, 1, 1),
		)
	}
	vp, vh := c.ValuePlanes, c.ValueHidden
	// The heads start small so that the first priors are nearly uniform and
	// the first values near 0.
	specs = append(specs,
		conv("policy.w", policyPlanes, ch, 1, 0.1/math.Sqrt(float64(ch))),
		bias("policy.b", 1, env.NumActions),
		conv("value.conv.w", vp, ch, 1, he(ch)),
		bias("value.conv.b", 1, vp, 1, 1),
		paramSpec{name: "value.fc1.w", shape: []int{vp * env.NumSquares, vh}, decay: true, std: he(vp * env.NumSquares)},
		bias("value.fc1.b", 1, vh),
		paramSpec{name: "value.fc2.w", shape: []int{vh, 1}, decay: true, std: 0.1 / math.Sqrt(float64(vh))},
		bias("value.fc2.b", 1, 1),
	)
	// The auxiliary heads read the trunk's squares as rows (B*36,
	// Channels), so their 1x1 convolutions are stored as fully connected
	// layers (in, out).
	fc := func(name string, in, out int, std float64) paramSpec {
		return paramSpec{name: name, shape: []int{in, out}, decay: true, std: std}
	}
	if c.ReplyHead {
		specs = append(specs, fc("reply.w", ch, policyPlanes, 0.1/math.Sqrt(float64(ch))), bias("reply.b", 1, policyPlanes))
	}
	if c.OwnershipHead {
		specs = append(specs, fc("ownership.w", ch, 1, 0.1/math.Sqrt(float64(ch))), bias("ownership.b", 1, 1))
	}
	if c.ScoreHead {
		specs = append(specs,
			fc("score.conv.w", ch, 1, he(ch)), bias("score.conv.b", 1, 1),
			fc("score.fc.w", env.NumSquares, 1, 0.1/math.Sqrt(env.NumSquares)), bias("score.fc.b", 1, 1))
	}
	return specs
}

// inferenceParams is the number of learnables inference uses: the first
// ones of specs, before the auxiliary heads'.
func (c Config) inferenceParams() int { return fused.TrunkParams(c.Blocks) + 8 }

// FLOPs is the number of floating-point operations (multiply and add
// counted separately) of one position's forward pass at inference (no
// auxiliary head), counting the convolutions and matrix products only.
func (c Config) FLOPs() int64 {
	var n int64
	for _, p := range c.specs()[:c.inferenceParams()] {
		if !p.decay {
			continue
		}
		perSquare := int64(p.size())
		if len(p.shape) == 4 { // a convolution runs at every square
			perSquare *= env.NumSquares
		}
		n += 2 * perSquare
	}
	return n
}

// TrainFLOPs is the floating-point operations a training step spends on
// one sample: the forward pass (FLOPs), the weights' gradients (as many
// again) and the layers' inputs' gradients (as many again but for the
// stem's: the observation needs none). "deathstacks bench nn" rates the
// training step with it.
func (c Config) TrainFLOPs() int64 {
	stem := c.specs()[0]
	return 3*c.FLOPs() - 2*int64(stem.size())*env.NumSquares
}

// initParams returns the initial values of c's learnables drawn from rng.
func (c Config) initParams(rng *rand.Rand) [][]float32 {
	specs := c.specs()
	out := make([][]float32, len(specs))
	for i, p := range specs {
		v := make([]float32, p.size())
		if p.std > 0 {
			for j := range v {
				v[j] = float32(rng.NormFloat64() * p.std)
			}
		}
		out[i] = v
	}
	return out
}
