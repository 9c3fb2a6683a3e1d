package dirichlet

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestDirichlet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 0x6d637473))
	for _, alpha := range []float64{0.03, 0.3, 1, 2.5} {
		// The mean of gamma(alpha) is alpha and its variance alpha.
		const n = 20000
		var sum float64
		for range n {
			sum += sampleGamma(rng, alpha)
		}
		if mean := sum / n; math.Abs(mean-alpha) > 4*math.Sqrt(alpha/n) {
			t.Errorf("gamma(%v): mean %v", alpha, mean)
		}
		d := Sample(rng, alpha, nil, 40)
		var total float64
		for _, x := range d {
			if !(x >= 0) {
				t.Fatalf("dirichlet(%v): entry %v", alpha, x)
			}
			total += x
		}
		if math.Abs(total-1) > 1e-9 {
			t.Errorf("dirichlet(%v): sums to %v", alpha, total)
		}
	}
}
