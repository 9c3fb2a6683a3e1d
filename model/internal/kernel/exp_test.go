package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkExpShifted checks ExpShifted's results y and sum for inputs x and
// shift against float64's exp: within 1 unit in the last place at and
// above expMin, 0 below, and the sum within float32's rounding of the
// results' sum.
func checkExpShifted(t *testing.T, x, y []float32, shift, sum float32) {
	t.Helper()
	var total float64
	for i, v := range x {
		d := float64(v - shift)
		got := float64(y[i])
		total += got
		if d < expMin {
			if got != 0 {
				t.Fatalf("exp(%v) = %v: want 0 below %v", d, got, expMin)
			}
			continue
		}
		want := math.Exp(d)
		ulp := float64(math.Nextafter32(float32(want), float32(math.Inf(1))) - float32(want))
		if math.Abs(got-want) > ulp {
			t.Fatalf("exp(%v) = %v: want %v within 1 ulp (%v)", d, got, want, ulp)
		}
	}
	if math.Abs(float64(sum)-total) > 1e-6*total {
		t.Fatalf("sum %v: want %v", sum, total)
	}
}

// TestExpShifted checks ExpShifted, and its portable form where the AVX2
// one runs, on slices with and without a tail past the last 8 values:
// exp(0) exactly 1, the values around expMin, -Inf and random ones as a
// network's logits spread.
func TestExpShifted(t *testing.T) {
	inf := float32(math.Inf(-1))
	rng := rand.New(rand.NewPCG(7, 9))
	spread := func(n int, scale float64) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * scale)
		}
		return x
	}
	cases := []struct {
		name  string
		x     []float32
		shift float32
	}{
		{"empty", nil, 0},
		{"zero", []float32{0}, 0},
		{"equal to shift", slices.Repeat([]float32{3.25}, 9), 3.25},
		{"around expMin", []float32{-86, -86.00001, -85.99999, -85, -87, -87.4, -103, -104, -1e30}, 0},
		{"-inf", []float32{inf, 0, inf, -1, inf, -2, inf, -3, inf, -4}, 0},
		{"logits", spread(37, 3), 7},
		{"wide logits", spread(101, 30), 90},
		{"block", spread(8, 1), 4},
		{"blocks", spread(64, 2), 9},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			y := slices.Clone(tc.x)
			sum := ExpShifted(y, tc.shift)
			checkExpShifted(t, tc.x, y, tc.shift, sum)
			if tc.name == "zero" || tc.name == "equal to shift" {
				for _, v := range y {
					if v != 1 {
						t.Fatalf("exp(0) = %v: want 1 exactly", v)
					}
				}
			}
			g := slices.Clone(tc.x)
			checkExpShifted(t, tc.x, g, tc.shift, expShiftedGo(g, tc.shift))
		})
	}
}

// TestExpShiftedProperty checks every difference of a fine grid from
// expMin to 0 and random ones.
func TestExpShiftedProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, shift := range []float32{0, 1, -5, 40} {
		t.Run(fmt.Sprintf("shift=%v", shift), func(t *testing.T) {
			x := make([]float32, 0, 20000)
			for d := float32(expMin); d <= 0; d += 0.0091 {
				x = append(x, d+shift)
			}
			for range 4000 {
				x = append(x, shift-float32(rng.ExpFloat64()*5))
			}
			x = append(x, shift)
			y := slices.Clone(x)
			checkExpShifted(t, x, y, shift, ExpShifted(y, shift))
		})
	}
}

func BenchmarkExpShifted(b *testing.B) {
	// A position's legal actions: about 60 logits.
	x := randSlice(60, 1)
	y := make([]float32, len(x))
	for b.Loop() {
		copy(y, x)
		ExpShifted(y, 4)
	}
}
