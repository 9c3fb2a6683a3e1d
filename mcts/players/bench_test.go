package players

import (
	"testing"

	"github.com/deathstacks/deathstacks/mcts/internal/testgames"
)

func BenchmarkAlphaBeta(b *testing.B) {
	p, err := NewAlphaBetaPlayer(AlphaBetaConfig{Depth: 3}, 1)
	if err != nil {
		b.Fatal(err)
	}
	games := testgames.MiddleGames(b)
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
	games := testgames.MiddleGames(b)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := p.Choose(games[i%len(games)]); err != nil {
			b.Fatal(err)
		}
	}
}
