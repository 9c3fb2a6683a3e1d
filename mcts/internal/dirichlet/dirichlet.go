// Package dirichlet draws the noise a PUCT root mixes into its priors
// (mcts.Config.DirichletEpsilon): a sample of the symmetric Dirichlet
// distribution, from gamma draws.
package dirichlet

import (
	"math"
	"math/rand/v2"
)

// Sample appends to dst a sample of the symmetric Dirichlet distribution
// with concentration alpha over n outcomes: n gamma(alpha) draws,
// normalised.
func Sample(rng *rand.Rand, alpha float64, dst []float64, n int) []float64 {
	var sum float64
	for range n {
		g := sampleGamma(rng, alpha)
		dst = append(dst, g)
		sum += g
	}
	if sum == 0 {
		// Every draw underflowed (a tiny alpha): the limit puts all mass on
		// one outcome.
		dst[len(dst)-n+rng.IntN(n)] = 1
		return dst
	}
	for i := len(dst) - n; i < len(dst); i++ {
		dst[i] /= sum
	}
	return dst
}

// sampleGamma draws from the gamma distribution with shape alpha and scale
// 1 by Marsaglia and Tsang's method; a shape below 1 uses the boost
// gamma(a) = gamma(a+1) * U^(1/a).
func sampleGamma(rng *rand.Rand, alpha float64) float64 {
	if alpha < 1 {
		return sampleGamma(rng, alpha+1) * math.Pow(rng.Float64(), 1/alpha)
	}
	d := alpha - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
