package mcts

import (
	"testing"

	"github.com/deathstacks/deathstacks/mcts/internal/testgames"
)

// BenchmarkPUCTUniform measures the tree's own cost, with and without
// contempt (whose leaves look for a drawing move).
func BenchmarkPUCTUniform(b *testing.B) {
	for _, k := range []string{"0", "0.5"} {
		b.Run("contempt="+k, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Simulations = 800
			cfg.ReuseTree = false
			if err := cfg.Set("contempt", k); err != nil {
				b.Fatal(err)
			}
			benchSearch(b, cfg)
		})
	}
}

// BenchmarkGumbelUniform is the Gumbel root with self-play's noise: its
// halving and the improved policy on top of the same tree.
func BenchmarkGumbelUniform(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Simulations = 800
	cfg.ReuseTree = false
	cfg.Gumbel, cfg.Temperature, cfg.TemperaturePlies = true, 1, 1000
	benchSearch(b, cfg)
}

func benchSearch(b *testing.B, cfg Config) {
	p, err := NewPUCTPlayer(UniformEvaluator{}, cfg, 1)
	if err != nil {
		b.Fatal(err)
	}
	games := testgames.MiddleGames(b)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := p.Choose(games[i%len(games)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*cfg.Simulations)/b.Elapsed().Seconds(), "sims/s")
}

func BenchmarkUCTRollout(b *testing.B) {
	p, err := NewUCTPlayer(UCTConfig{Simulations: 200, Exploration: 1, RolloutDepth: 20}, 1)
	if err != nil {
		b.Fatal(err)
	}
	games := testgames.MiddleGames(b)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		p.s.reset()
		if _, err := p.Choose(games[i%len(games)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*200)/b.Elapsed().Seconds(), "sims/s")
}
