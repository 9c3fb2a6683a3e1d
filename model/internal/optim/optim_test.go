package optim

import (
	"math"
	"slices"
	"testing"
)

// TestUpdate checks two steps of each optimiser on one weight against the
// textbook formulas in float64, with and without weight decay, coupled
// (an L2 term's gradient) and decoupled (AdamW's).
func TestUpdate(t *testing.T) {
	for _, tc := range []struct {
		name            string
		adam, decoupled bool
		decay           bool
	}{
		{"sgd", false, false, false}, {"sgd decay", false, false, true}, {"sgdw decay", false, true, true},
		{"adam", true, false, false}, {"adam decay", true, false, true},
		{"adamw", true, true, false}, {"adamw decay", true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Settings{Momentum: 0.9, Beta1: 0.9, Beta2: 0.999, Epsilon: 1e-8, WeightDecay: 0.01, Decoupled: tc.decoupled}
			o := New(tc.adam, []int{1})
			w := [][]float32{{0.5}}
			grads := []float32{0.2, -0.1}
			want, m, v := 0.5, 0.0, 0.0
			const lr = 0.1
			for step, g := range grads {
				o.Update(s, lr, w, [][]float32{{g}}, []bool{tc.decay})
				gj := float64(g)
				switch {
				case tc.decay && tc.decoupled:
					want *= 1 - lr*s.WeightDecay
				case tc.decay:
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

func TestFlushSubnormals(t *testing.T) {
	tiny := math.Float32frombits(1) // the smallest subnormal
	cases := []struct {
		name    string
		in, out []float32
	}{
		{"normal numbers stay", []float32{1, -2.5, 1e-30, -1e-37, 0x1p-126}, []float32{1, -2.5, 1e-30, -1e-37, 0x1p-126}},
		{"subnormals go", []float32{tiny, -tiny, 1e-39, -0x1p-127, 0x1.fffffcp-127}, []float32{0, 0, 0, 0, 0}},
		{"zero and infinities stay", []float32{0, float32(math.Inf(1)), float32(math.Inf(-1))}, []float32{0, float32(math.Inf(1)), float32(math.Inf(-1))}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := slices.Clone(tc.in)
			FlushSubnormals(x)
			if !slices.Equal(x, tc.out) {
				t.Errorf("FlushSubnormals(%v) = %v, want %v", tc.in, x, tc.out)
			}
		})
	}
}

func TestUpdateLeavesNoSubnormals(t *testing.T) {
	// Weight decay on a weight without gradient shrinks it towards 0; the
	// update must never leave it, or a moment, subnormal.
	for _, adam := range []bool{true, false} {
		for _, decoupled := range []bool{false, true} {
			o := New(adam, []int{1})
			w, g := [][]float32{{1e-37}}, [][]float32{{0}}
			for range 200 {
				o.Update(Settings{Beta1: 0.9, Beta2: 0.999, Epsilon: 1e-8, Momentum: 0.9, WeightDecay: 0.4, Decoupled: decoupled}, 0.5, w, g, []bool{true})
				for _, slot := range append(o.Slots(), w) {
					for _, a := range slot {
						if v := a[0]; v != 0 && math.Abs(float64(v)) < 0x1p-126 {
							t.Fatalf("adam %v, decoupled %v: a subnormal %v after an update", adam, decoupled, v)
						}
					}
				}
			}
		}
	}
}

// TestDecayOfAnUnusedWeight shows why AdamW exists: under Adam the L2
// term's gradient, alone, is normalised to a step of the whole learning
// rate, so a weight without loss gradient (a dead unit's) reaches zero
// within w/lr steps whatever the decay's size; decoupled decay takes a
// factor of 1 - lr*decay a step off it.
func TestDecayOfAnUnusedWeight(t *testing.T) {
	const lr, decay, steps = 0.002, 0.01, 100
	for _, tc := range []struct {
		decoupled bool
		want, tol float64
	}{
		{false, 0.5 - steps*lr, 0.02},                   // about 0.3: a step of nearly lr each time
		{true, 0.5 * math.Pow(1-lr*decay, steps), 1e-6}, // 0.4990: a thousandth
	} {
		o := New(true, []int{1})
		w, g := [][]float32{{0.5}}, [][]float32{{0}}
		for range steps {
			o.Update(Settings{Beta1: 0.9, Beta2: 0.999, Epsilon: 1e-8, WeightDecay: decay, Decoupled: tc.decoupled}, lr, w, g, []bool{true})
		}
		if got := float64(w[0][0]); math.Abs(got-tc.want) > tc.tol {
			t.Errorf("decoupled %v: %d steps take an unused 0.5 to %v, want %v", tc.decoupled, steps, got, tc.want)
		}
	}
}

// TestApplyInSections checks that an update applied a section at a time
// gives the weights and moments of one applied to the whole arrays, bit
// for bit.
func TestApplyInSections(t *testing.T) {
	for _, tc := range []struct {
		name            string
		adam, decoupled bool
	}{{"sgd", false, false}, {"adam", true, false}, {"adamw", true, true}} {
		s := Settings{Momentum: 0.9, Beta1: 0.9, Beta2: 0.999, Epsilon: 1e-8, WeightDecay: 0.01, Decoupled: tc.decoupled}
		adam := tc.adam
		t.Run(tc.name, func(t *testing.T) {
			const n = 37
			w0, g := make([]float32, n), make([]float32, n)
			for j := range n {
				w0[j], g[j] = float32(math.Sin(float64(j))), float32(math.Cos(float64(3*j)))
			}
			whole, parts := New(adam, []int{n}), New(adam, []int{n})
			ww, wp := slices.Clone(w0), slices.Clone(w0)
			for range 2 {
				whole.Begin(s, 0.1).Apply(0, 0, ww, g, true)
				u := parts.Begin(s, 0.1)
				for lo := 0; lo < n; lo += 8 {
					hi := min(lo+8, n)
					u.Apply(0, lo, wp[lo:hi], g[lo:hi], true)
				}
			}
			if !slices.Equal(ww, wp) || !slices.Equal(whole.M[0], parts.M[0]) || (adam && !slices.Equal(whole.V[0], parts.V[0])) {
				t.Error("an update in sections differs from one over the whole arrays")
			}
		})
	}
}
