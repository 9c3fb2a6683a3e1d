package model

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/env"
)

func TestExploreSpeed(t *testing.T) {
	for _, cfg := range []Config{{2, 32, 2, 64}, {3, 32, 2, 64}, {4, 32, 2, 64}, {3, 48, 2, 64}, {4, 48, 2, 64}, {4, 64, 2, 64}} {
		n, err := New(cfg, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		e := newEngine(n, 64)
		for _, b := range []int{1, 8, 32, 64} {
			obs := make([]float32, b*env.ObservationSize)
			for i := range obs {
				obs[i] = float32(i%3) / 2
			}
			fill := func(xs []float32) { copy(xs, obs) }
			e.forward(b, fill)
			start := time.Now()
			k := 0
			for time.Since(start) < 700*time.Millisecond {
				if _, _, err := e.forward(b, fill); err != nil {
					t.Fatal(err)
				}
				k++
			}
			el := time.Since(start).Seconds()
			fmt.Printf("%v B=%d evals/s=%.0f GFLOP/s=%.2f\n", cfg, b, float64(k*b)/el, float64(k*b)*float64(cfg.FLOPs())/el/1e9)
		}
	}
}
