package model

import (
	"fmt"
	"math"
)

// optimizer is Adam or SGD with momentum over the network's weights,
// written here rather than taken from gorgonia because gorgonia's solvers
// keep their state unexported, and a resumed run must continue exactly.
type optimizer struct {
	kind string
	// t is the number of updates applied (Adam's bias correction).
	t int64
	// m is the first moment (Adam) or the velocity (SGD); v is Adam's
	// second moment, nil for SGD.
	m, v [][]float32
}

func newOptimizer(kind string, sizes []int) *optimizer {
	o := &optimizer{kind: kind, m: zeros(sizes)}
	if kind == Adam {
		o.v = zeros(sizes)
	}
	return o
}

func zeros(sizes []int) [][]float32 {
	out := make([][]float32, len(sizes))
	for i, n := range sizes {
		out[i] = make([]float32, n)
	}
	return out
}

// slots returns the state arrays in file order.
func (o *optimizer) slots() [][][]float32 {
	if o.kind == Adam {
		return [][][]float32{o.m, o.v}
	}
	return [][][]float32{o.m}
}

// check reports whether o can drive training configured as cfg.
func (o *optimizer) check(cfg TrainConfig) error {
	if o.kind != cfg.Optimizer {
		return fmt.Errorf("saved optimiser state is %s, configuration asks for %s", o.kind, cfg.Optimizer)
	}
	return nil
}

// update applies one step of learning rate lr to weights given the loss
// gradients grads (without the L2 term, which it adds for the weights that
// decay marks).
func (o *optimizer) update(cfg TrainConfig, lr float64, weights, grads [][]float32, decay []bool) {
	o.t++
	l2 := float32(2 * cfg.WeightDecay)
	switch o.kind {
	case Adam:
		b1, b2 := float32(cfg.Beta1), float32(cfg.Beta2)
		// Bias corrections folded into the step size and epsilon.
		c1 := 1 - math.Pow(cfg.Beta1, float64(o.t))
		c2 := 1 - math.Pow(cfg.Beta2, float64(o.t))
		step := float32(lr * math.Sqrt(c2) / c1)
		eps := float32(cfg.Epsilon * math.Sqrt(c2))
		for i, w := range weights {
			g, m, v := grads[i], o.m[i], o.v[i]
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
		}
	case SGD:
		mu, rate := float32(cfg.Momentum), float32(lr)
		for i, w := range weights {
			g, m := grads[i], o.m[i]
			wd := float32(0)
			if decay[i] {
				wd = l2
			}
			for j := range w {
				m[j] = mu*m[j] + g[j] + wd*w[j]
				w[j] -= rate * m[j]
			}
		}
	}
}
