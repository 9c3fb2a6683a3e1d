package optim

import (
	"math"

	"github.com/deathstacks/deathstacks/model/internal/kernel"
)

// Settings are the optimiser's hyper-parameters.
type Settings struct {
	// Momentum is SGD's momentum.
	Momentum float64
	// Beta1, Beta2 and Epsilon are Adam's.
	Beta1, Beta2, Epsilon float64
	// WeightDecay is the L2 coefficient: the gradient of WeightDecay times
	// the sum of the squared weights is added for the weights marked to
	// decay. With Decoupled it is AdamW's decay instead: each step
	// multiplies those weights by 1 - lr*WeightDecay before the update,
	// apart from the gradient and so apart from Adam's normalisation of it
	// (Loshchilov and Hutter, "Decoupled Weight Decay Regularization").
	WeightDecay float64
	Decoupled   bool
}

// State is an optimiser's state over a list of weight arrays.
type State struct {
	// Adam is true for Adam, false for SGD with momentum.
	Adam bool
	// T is the number of updates applied (Adam's bias correction).
	T int64
	// M is the first moment (Adam) or the velocity (SGD); V is Adam's
	// second moment, nil for SGD.
	M, V [][]float32
}

// New returns a fresh state for weight arrays of the given sizes.
func New(adam bool, sizes []int) *State {
	s := &State{Adam: adam, M: zeros(sizes)}
	if adam {
		s.V = zeros(sizes)
	}
	return s
}

func zeros(sizes []int) [][]float32 {
	out := make([][]float32, len(sizes))
	for i, n := range sizes {
		out[i] = make([]float32, n)
	}
	return out
}

// Slots returns the state arrays in file order: M, then V for Adam.
func (o *State) Slots() [][][]float32 {
	if o.Adam {
		return [][][]float32{o.M, o.V}
	}
	return [][][]float32{o.M}
}

// Update applies one step of learning rate lr to weights given the loss
// gradients grads (without the L2 term, which it adds for the weights that
// decay marks): Begin, then Apply to each array.
func (o *State) Update(s Settings, lr float64, weights, grads [][]float32, decay []bool) {
	u := o.Begin(s, lr)
	for i, w := range weights {
		u.Apply(i, 0, w, grads[i], decay[i])
	}
}

// Step is one update's coefficients (see Begin).
type Step struct {
	o *State
	// Adam's betas, step size and epsilon (bias corrections folded in),
	// SGD's momentum and rate, the L2 term's gradient factor, and the
	// share of each weight that decoupled decay takes off (0 when off;
	// w -= shrink*w keeps a share far below float32's resolution of 1).
	b1, b2, step, eps, mu, rate, l2, shrink float32
}

// Begin counts one update of learning rate lr and returns its
// coefficients; the update is done when Apply has updated every weight
// array. Apply's calls for different arrays may run concurrently.
func (o *State) Begin(s Settings, lr float64) Step {
	o.T++
	u := Step{o: o, l2: float32(2 * s.WeightDecay), mu: float32(s.Momentum), rate: float32(lr)}
	if s.Decoupled {
		u.l2, u.shrink = 0, float32(lr*s.WeightDecay)
	}
	if o.Adam {
		u.b1, u.b2 = float32(s.Beta1), float32(s.Beta2)
		// Bias corrections folded into the step size and epsilon.
		c1 := 1 - math.Pow(s.Beta1, float64(o.T))
		c2 := 1 - math.Pow(s.Beta2, float64(o.T))
		u.step = float32(lr * math.Sqrt(c2) / c1)
		u.eps = float32(s.Epsilon * math.Sqrt(c2))
	}
	return u
}

// Apply updates w, the values of weight array i from index lo on, given
// their loss gradient g (without the weight decay, which it applies if
// decay). An array may be updated a section at a time, each section once.
func (u Step) Apply(i, lo int, w, g []float32, decay bool) {
	wd := float32(0)
	if decay {
		wd = u.l2
		if u.shrink != 0 {
			for j := range w {
				w[j] -= u.shrink * w[j]
			}
		}
	}
	m := u.o.M[i][lo : lo+len(w)]
	if u.o.Adam {
		v := u.o.V[i][lo : lo+len(w)]
		// Adam flushes the subnormal results itself.
		kernel.Adam(w, g, m, v, kernel.AdamStep{Decay: wd, Beta1: u.b1, Beta2: u.b2, Step: u.step, Eps: u.eps})
		return
	}
	for j := range w {
		m[j] = u.mu*m[j] + g[j] + wd*w[j]
		w[j] -= u.rate * m[j]
	}
	FlushSubnormals(w)
	FlushSubnormals(m)
}

// FlushSubnormals sets the subnormal numbers of x (nonzero, below
// math.SmallestNormal32 in magnitude) to zero. x86 cores compute with a
// subnormal operand tens of times slower than with a normal one, and
// weight decay drives the weights a network does not use, and their
// optimiser moments, down into that range: a network with a third of
// its weights subnormal evaluates tens of times slower than one without.
// What they add to any sum is below float32's resolution of it.
func FlushSubnormals(x []float32) {
	for i, v := range x {
		if v != 0 && math.Abs(float64(v)) < smallestNormal32 {
			x[i] = 0
		}
	}
}

// smallestNormal32 is the smallest positive normal float32, 2^-126.
const smallestNormal32 = 0x1p-126
