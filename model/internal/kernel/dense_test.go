package kernel

import (
	"fmt"
	"math"
	"testing"
)

func TestDense(t *testing.T) {
	for _, tc := range []struct {
		rows, in, out int
		relu          bool
	}{
		{32, 72, 64, true}, // the default network's value head at the server's batch
		{1, 72, 64, true},
		{7, 5, 3, false},  // a partial tile after a whole one; one partial panel
		{13, 1, 17, true}, // two panels, the second partial
		{6, 40, 48, false},
		{5, 300, 33, true},
		{0, 4, 4, true},
	} {
		t.Run(fmt.Sprintf("rows=%d/in=%d/out=%d/relu=%v", tc.rows, tc.in, tc.out, tc.relu), func(t *testing.T) {
			w, bias, x := randSlice(tc.in*tc.out, 1), randSlice(tc.out, 2), randSlice(tc.rows*tc.in, 3)
			var d Dense
			d.Pack(w, tc.in, tc.out, bias, tc.relu)
			ld := d.Stride()
			if ld%nr != 0 || ld < tc.out || ld >= tc.out+nr {
				t.Fatalf("Stride() = %d for %d outputs", ld, tc.out)
			}
			y := make([]float32, tc.rows*ld+1)
			const sentinel = 12345
			y[len(y)-1] = sentinel
			for i := range y[:len(y)-1] {
				y[i] = float32(math.NaN()) // every value must be written
			}
			d.Forward(tc.rows, x, y)
			for i := range tc.rows {
				for j := range ld {
					got := y[i*ld+j]
					if j >= tc.out {
						if got != 0 {
							t.Fatalf("y[%d][%d] = %g past the outputs, want 0", i, j, got)
						}
						continue
					}
					want := float64(bias[j])
					for p := range tc.in {
						want += float64(x[i*tc.in+p]) * float64(w[p*tc.out+j])
					}
					if tc.relu {
						want = max(want, 0)
					}
					if math.Abs(float64(got)-want) > 1e-5*(1+float64(tc.in)) {
						t.Fatalf("y[%d][%d] = %g, want %g", i, j, got, want)
					}
				}
			}
			if y[len(y)-1] != sentinel {
				t.Fatalf("Forward wrote past its %d rows", tc.rows)
			}
		})
	}
}

// BenchmarkDense runs the default network's value head's first fully
// connected layer (72 inputs, 64 outputs, ReLU) at the server's batch of
// 32.
func BenchmarkDense(b *testing.B) {
	const rows, in, out = 32, 72, 64
	var d Dense
	d.Pack(randSlice(in*out, 1), in, out, randSlice(out, 2), true)
	x, y := randSlice(rows*in, 3), make([]float32, rows*d.Stride())
	for b.Loop() {
		d.Forward(rows, x, y)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
}
