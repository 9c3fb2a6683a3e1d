package optim

import (
	"math"
	"testing"
)

// TestUpdate checks two steps of each optimiser on one weight against the
// textbook formulas in float64, with and without weight decay.
func TestUpdate(t *testing.T) {
	s := Settings{Momentum: 0.9, Beta1: 0.9, Beta2: 0.999, Epsilon: 1e-8, WeightDecay: 0.01}
	for _, tc := range []struct {
		name  string
		adam  bool
		decay bool
	}{{"sgd", false, false}, {"sgd decay", false, true}, {"adam", true, false}, {"adam decay", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			o := New(tc.adam, []int{1})
			w := [][]float32{{0.5}}
			grads := []float32{0.2, -0.1}
			want, m, v := 0.5, 0.0, 0.0
			const lr = 0.1
			for step, g := range grads {
				o.Update(s, lr, w, [][]float32{{g}}, []bool{tc.decay})
				gj := float64(g)
				if tc.decay {
					gj += 2 * s.WeightDecay * want
				}
				if tc.adam {
					m = s.Beta1*m + (1-s.Beta1)*gj
					v = s.Beta2*v + (1-s.Beta2)*gj*gj
					n := float64(step + 1)
					mh, vh := m/(1-math.Pow(s.Beta1, n)), v/(1-math.Pow(s.Beta2, n))
					want -= lr * mh / (math.Sqrt(vh) + s.Epsilon)
				} else {
					m = s.Momentum*m + gj
					want -= lr * m
				}
				if math.Abs(float64(w[0][0])-want) > 1e-6 {
					t.Fatalf("step %d: weight %v, want %v", step+1, w[0][0], want)
				}
			}
			if o.T != int64(len(grads)) || len(o.Slots()) != map[bool]int{false: 1, true: 2}[tc.adam] {
				t.Errorf("state after %d steps: T %d, %d slots", len(grads), o.T, len(o.Slots()))
			}
		})
	}
}
