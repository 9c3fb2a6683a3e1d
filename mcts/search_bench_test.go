package mcts

import (
	"testing"

	"github.com/deathstacks/deathstacks/env"
)

// benchGames returns a few positions from the middle of random games, so
// that benchmarks see stacks of several heights and not only the start.
func benchGames(b *testing.B) []*env.Game {
	b.Helper()
	var games []*env.Game
	for i := uint64(0); i < 4; i++ {
		games = append(games, randomGame(b, i, 10+int(i)*8))
	}
	return games
}

func BenchmarkPUCTUniform(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Simulations = 800
	cfg.ReuseTree = false
	benchSearch(b, cfg)
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
	games := benchGames(b)
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
	games := benchGames(b)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		p.s.reset()
		if _, err := p.Choose(games[i%len(games)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*200)/b.Elapsed().Seconds(), "sims/s")
}

func BenchmarkAlphaBeta(b *testing.B) {
	p, err := NewAlphaBetaPlayer(AlphaBetaConfig{Depth: 3}, 1)
	if err != nil {
		b.Fatal(err)
	}
	games := benchGames(b)
	var nodes int64
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		clear(p.tt)
		d, err := p.Choose(games[i%len(games)])
		if err != nil {
			b.Fatal(err)
		}
		nodes += d.Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

func BenchmarkGreedyChoose(b *testing.B) {
	p := NewGreedyPlayer(1)
	games := benchGames(b)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := p.Choose(games[i%len(games)]); err != nil {
			b.Fatal(err)
		}
	}
}
