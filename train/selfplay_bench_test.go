package train

import (
	"context"
	"testing"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/builtin"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// BenchmarkSelfPlay plays self-play as a run's iteration does: the
// default config's searches and self-play settings, parallel_games games
// at once on the built-in player's network in its lanes. An op is one
// round of parallel_games games; it reports plies played and network
// evaluations a second, and the mean batch of a lane's network call.
func BenchmarkSelfPlay(b *testing.B) {
	cfg := runconfig.Defaults()
	net, err := model.ReadNetwork(builtin.Open())
	if err != nil {
		b.Fatal(err)
	}
	evals, err := lanes(net, cfg.Server)
	if err != nil {
		b.Fatal(err)
	}
	sp := newSelfPlayer(cfg, 1)
	n := cfg.SelfPlay.ParallelGames
	plies, evaluated, batches := 0, int64(0), int64(0)
	round := uint64(0)
	for b.Loop() {
		stats, err := sp.runSelfPlay(context.Background(), evals, n, n, round, func(int, SelfPlayGame) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		plies += stats.Plies
		evaluated += stats.Evaluated
		batches += stats.Batches
		round++
	}
	b.ReportMetric(float64(plies)/b.Elapsed().Seconds(), "plies/s")
	b.ReportMetric(float64(evaluated)/b.Elapsed().Seconds(), "evals/s")
	b.ReportMetric(float64(evaluated)/float64(max(batches, 1)), "batch")
}
