package model

import (
	"math/rand/v2"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/fused"
	"github.com/deathstacks/deathstacks/model/internal/graph"
)

// arch is c as the graphs take it.
func (c Config) arch() graph.Arch { return graph.Arch(c) }

// specs lists the learnables of c, in the order the graphs take them and
// the file stores them.
func (c Config) specs() []graph.Spec { return c.arch().Specs() }

// dims is what the fused ops need of c.
func (c Config) dims() fused.Dims { return c.arch().Dims() }

// inferenceParams is the number of learnables inference uses: the first
// ones of specs, before the auxiliary heads'.
func (c Config) inferenceParams() int { return c.arch().InferenceParams() }

// FLOPs is the number of floating-point operations (multiply and add
// counted separately) of one position's forward pass at inference (no
// auxiliary head), counting the convolutions and matrix products only.
func (c Config) FLOPs() int64 {
	var n int64
	for _, p := range c.specs()[:c.inferenceParams()] {
		if !p.Decay {
			continue
		}
		perSquare := int64(p.Size())
		if len(p.Shape) == 4 { // a convolution runs at every square
			perSquare *= env.NumSquares
		}
		n += 2 * perSquare
	}
	return n
}

// TrainFLOPs is the floating-point operations a training step spends on
// one sample: the forward pass (FLOPs), the weights' gradients (as many
// again) and the layers' inputs' gradients (as many again but for the
// stem's: the observation needs none). "deathstacks bench nn" rates the
// training step with it.
func (c Config) TrainFLOPs() int64 {
	stem := c.specs()[0]
	return 3*c.FLOPs() - 2*int64(stem.Size())*env.NumSquares
}

// initParams returns the initial values of c's learnables drawn from rng.
func (c Config) initParams(rng *rand.Rand) [][]float32 {
	specs := c.specs()
	out := make([][]float32, len(specs))
	for i, p := range specs {
		v := make([]float32, p.Size())
		if p.Std > 0 {
			for j := range v {
				v[j] = float32(rng.NormFloat64() * p.Std)
			}
		}
		out[i] = v
	}
	return out
}
