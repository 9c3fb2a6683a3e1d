package graph

import (
	"fmt"
	"math"
	"strconv"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/fused"
)

// Arch is a network's architecture as the graphs take it: the fields of
// model.Config (a Config converts to an Arch).
type Arch struct {
	Blocks, Channels, ValuePlanes, ValueHidden int
	ReplyHead, OwnershipHead, ScoreHead        bool
}

// String is the short form used in messages, e.g. "3x32 (value 2/64)".
func (c Arch) String() string {
	s := fmt.Sprintf("%dx%d (value %d/%d)", c.Blocks, c.Channels, c.ValuePlanes, c.ValueHidden)
	for _, h := range []struct {
		on   bool
		name string
	}{{c.ReplyHead, "reply"}, {c.OwnershipHead, "ownership"}, {c.ScoreHead, "score"}} {
		if h.on {
			s += " +" + h.name
		}
	}
	return s
}

// HasAux says whether the network has an auxiliary head.
func (c Arch) HasAux() bool { return c.ReplyHead || c.OwnershipHead || c.ScoreHead }

// BoardSide is the board's width and height in squares.
const BoardSide = 6

// PolicyPlanes is the number of 6x6 logit planes of the policy head: one
// per (direction, count) pair, so that flattening them plane-major gives
// exactly the action index order of env.
const PolicyPlanes = env.NumActions / env.NumSquares

// Spec describes one learnable tensor.
type Spec struct {
	Name  string
	Shape []int
	// Decay marks weights that the L2 term covers (biases are exempt).
	Decay bool
	// Std is the standard deviation of the initial normal values; 0 means
	// zeros.
	Std float64
}

// Dims is what the fused ops need of c.
func (c Arch) Dims() fused.Dims {
	d := fused.Dims{Channels: c.Channels, Blocks: c.Blocks, ValuePlanes: c.ValuePlanes, ValueHidden: c.ValueHidden}
	for _, s := range c.Specs() {
		d.Shapes = append(d.Shapes, s.Shape)
	}
	return d
}

// Sizes lists the sizes of specs.
func Sizes(specs []Spec) []int {
	sizes := make([]int, len(specs))
	for i, s := range specs {
		sizes[i] = s.Size()
	}
	return sizes
}

// SumSizes is the number of values of specs.
func SumSizes(specs []Spec) int {
	total := 0
	for _, s := range specs {
		total += s.Size()
	}
	return total
}

// Size is the number of values of the tensor.
func (p Spec) Size() int {
	n := 1
	for _, d := range p.Shape {
		n *= d
	}
	return n
}

// Specs lists the learnables of a network with this architecture, in the
// order the graphs take them and the file stores them.
func (c Arch) Specs() []Spec {
	ch := c.Channels
	he := func(fanIn int) float64 { return math.Sqrt(2 / float64(fanIn)) }
	conv := func(name string, out, in, k int, std float64) Spec {
		return Spec{Name: name, Shape: []int{out, in, k, k}, Decay: true, Std: std}
	}
	bias := func(name string, shape ...int) Spec {
		return Spec{Name: name, Shape: shape}
	}
	specs := []Spec{
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
		conv("policy.w", PolicyPlanes, ch, 1, 0.1/math.Sqrt(float64(ch))),
		bias("policy.b", 1, env.NumActions),
		conv("value.conv.w", vp, ch, 1, he(ch)),
		bias("value.conv.b", 1, vp, 1, 1),
		Spec{Name: "value.fc1.w", Shape: []int{vp * env.NumSquares, vh}, Decay: true, Std: he(vp * env.NumSquares)},
		bias("value.fc1.b", 1, vh),
		Spec{Name: "value.fc2.w", Shape: []int{vh, 1}, Decay: true, Std: 0.1 / math.Sqrt(float64(vh))},
		bias("value.fc2.b", 1, 1),
	)
	// The auxiliary heads read the trunk's squares as rows (B*36,
	// Channels), so their 1x1 convolutions are stored as fully connected
	// layers (in, out).
	fc := func(name string, in, out int, std float64) Spec {
		return Spec{Name: name, Shape: []int{in, out}, Decay: true, Std: std}
	}
	if c.ReplyHead {
		specs = append(specs, fc("reply.w", ch, PolicyPlanes, 0.1/math.Sqrt(float64(ch))), bias("reply.b", 1, PolicyPlanes))
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

// InferenceParams is the number of learnables inference uses: the first
// ones of Specs, before the auxiliary heads'.
func (c Arch) InferenceParams() int { return fused.TrunkParams(c.Blocks) + 8 }
