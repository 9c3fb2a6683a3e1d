package kernel

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// adamForms runs each form of Adam (the portable one, and the AVX one
// where the CPU has it) on copies of w, m and v, and returns each form's
// w, m and v after the update, one after the other. It fails t if the
// forms differ in any bit.
func adamForms(t *testing.T, w, g, m, v []float32, c AdamStep) map[string][]float32 {
	t.Helper()
	forms := map[string]func(w, g, m, v []float32, c *AdamStep){"go": adamGo}
	if haveAVX2FMA {
		forms["avx"] = func(w, g, m, v []float32, c *AdamStep) {
			k := len(w) / 8 * 8
			adamAsm(w[:k], g[:k], m[:k], v[:k], c)
			adamGo(w[k:], g[k:], m[k:], v[k:], c)
		}
	}
	got := map[string][]float32{}
	for name, adam := range forms {
		w2, m2, v2 := slices.Clone(w), slices.Clone(m), slices.Clone(v)
		adam(w2, g, m2, v2, &c)
		got[name] = slices.Concat(w2, m2, v2)
	}
	if a, ok := got["avx"]; ok && !slices.Equal(a, got["go"]) {
		t.Error("the AVX and Go forms differ")
	}
	return got
}

// TestAdam checks both forms of Adam against the formula in float64 and
// against each other bit for bit, at lengths with and without a tail
// past the last 8 values.
func TestAdam(t *testing.T) {
	for _, n := range []int{1, 8, 37} {
		for _, c := range []AdamStep{
			{Decay: 0, Beta1: 0.9, Beta2: 0.999, Step: 1e-3, Eps: 1e-8},
			{Decay: 2e-4, Beta1: 0.8, Beta2: 0.99, Step: 0.05, Eps: 1e-6},
		} {
			t.Run(fmt.Sprintf("n=%d/decay=%v", n, c.Decay), func(t *testing.T) {
				w, g, m := randSlice(n, 1), randSlice(n, 2), randSlice(n, 3)
				v := randSlice(n, 4)
				for i := range v {
					v[i] *= v[i]
				}
				for name, got := range adamForms(t, w, g, m, v, c) {
					w2, m2, v2 := got[:n], got[n:2*n], got[2*n:]
					for j := range w {
						gj := float64(g[j]) + float64(c.Decay)*float64(w[j])
						mj := float64(c.Beta1)*float64(m[j]) + (1-float64(c.Beta1))*gj
						vj := float64(c.Beta2)*float64(v[j]) + (1-float64(c.Beta2))*gj*gj
						wj := float64(w[j]) - float64(c.Step)*mj/(math.Sqrt(vj)+float64(c.Eps))
						for _, x := range [][2]float64{{float64(m2[j]), mj}, {float64(v2[j]), vj}, {float64(w2[j]), wj}} {
							if math.Abs(x[0]-x[1]) > 1e-5*(1+math.Abs(x[1])) {
								t.Fatalf("%s: value %d is %v, want %v", name, j, x[0], x[1])
							}
						}
					}
				}
			})
		}
	}
}

// TestAdamFlushes checks that both forms store no subnormal weight or
// moment, and agree bit for bit, on values near the smallest normal
// (some results subnormal, some -0) and on zeros.
func TestAdamFlushes(t *testing.T) {
	const n = 37
	w, g, m, v := randSlice(n, 5), make([]float32, n), randSlice(n, 6), randSlice(n, 7)
	for j := range w {
		w[j] *= 0x1p-125
		m[j] *= 0x1p-125
		v[j] = v[j] * v[j] * 0x1p-125
	}
	w[3], m[4] = float32(math.Copysign(0, -1)), float32(math.Copysign(0, -1))
	c := AdamStep{Decay: 0.5, Beta1: 0.9, Beta2: 0.999, Step: 0x1p-140, Eps: 1e-8}
	for name, got := range adamForms(t, w, g, m, v, c) {
		flushed := 0
		for j, x := range got {
			if b := math.Float32bits(x); b&0x7fffffff < 0x00800000 && b != 0 {
				t.Fatalf("%s: value %d is %v, subnormal or -0", name, j, x)
			}
			if x == 0 {
				flushed++
			}
		}
		if flushed == 0 {
			t.Fatalf("%s: no result flushed: the test's values are too large", name)
		}
	}
}

func TestAdamRejectsLengths(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	Adam(make([]float32, 3), make([]float32, 3), make([]float32, 2), make([]float32, 3), AdamStep{})
}

func BenchmarkAdam(b *testing.B) {
	// About the default network's number of weights.
	const n = 80000
	w, g, m, v := randSlice(n, 1), randSlice(n, 2), randSlice(n, 3), randSlice(n, 4)
	for i := range v {
		v[i] *= v[i]
	}
	c := AdamStep{Beta1: 0.9, Beta2: 0.999, Step: 1e-9, Eps: 1e-8}
	for b.Loop() {
		Adam(w, g, m, v, c)
	}
}
