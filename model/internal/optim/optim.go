package optim

import "math"

// Settings are the optimiser's hyper-parameters.
type Settings struct {
	// Momentum is SGD's momentum.
	Momentum float64
	// Beta1, Beta2 and Epsilon are Adam's.
	Beta1, Beta2, Epsilon float64
	// WeightDecay is the L2 coefficient: the gradient of WeightDecay times
	// the sum of the squared weights is added for the weights marked to
	// decay.
	WeightDecay float64
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
// decay marks).
func (o *State) Update(s Settings, lr float64, weights, grads [][]float32, decay []bool) {
	o.T++
	l2 := float32(2 * s.WeightDecay)
	if o.Adam {
		b1, b2 := float32(s.Beta1), float32(s.Beta2)
		// Bias corrections folded into the step size and epsilon.
		c1 := 1 - math.Pow(s.Beta1, float64(o.T))
		c2 := 1 - math.Pow(s.Beta2, float64(o.T))
		step := float32(lr * math.Sqrt(c2) / c1)
		eps := float32(s.Epsilon * math.Sqrt(c2))
		for i, w := range weights {
			g, m, v := grads[i], o.M[i], o.V[i]
			wd := float32(0)
			if decay[i] {
				wd = l2
			}
			for j := range w {
				gj := g[j] + wd*w[j]
				m[j] = b1*m[j] + (1-b1)*gj
				v[j] = b2*v[j] + (1-b2)*gj*gj
				w[j] -= step * m[j] / (float32(math.Sqrt(float64(v[j]))) + eps)
			}
			FlushSubnormals(w)
			FlushSubnormals(m)
			FlushSubnormals(v)
		}
		return
	}
	mu, rate := float32(s.Momentum), float32(lr)
	for i, w := range weights {
		g, m := grads[i], o.M[i]
		wd := float32(0)
		if decay[i] {
			wd = l2
		}
		for j := range w {
			m[j] = mu*m[j] + g[j] + wd*w[j]
			w[j] -= rate * m[j]
		}
		FlushSubnormals(w)
		FlushSubnormals(m)
	}
}

// FlushSubnormals sets the subnormal numbers of x (nonzero, below
// math.SmallestNormal32 in magnitude) to zero. x86 cores compute with a
// subnormal operand tens of times slower than with a normal one, and
// weight decay drives the weights a network does not use, and their
// optimiser moments, down into that range: a trained network with a
// third of its weights subnormal evaluated 30 times slower than a fresh
// one. What they add to any sum is below float32's resolution of it.
func FlushSubnormals(x []float32) {
	for i, v := range x {
		if v != 0 && math.Abs(float64(v)) < smallestNormal32 {
			x[i] = 0
		}
	}
}

// smallestNormal32 is the smallest positive normal float32, 2^-126.
const smallestNormal32 = 0x1p-126
