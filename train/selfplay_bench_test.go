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
// at once on the built-in player's network behind the network server.
// An op is one round of parallel_games games; it reports plies played
// and network evaluations a second, and the mean batch.
func BenchmarkSelfPlay(b *testing.B) {
	cfg := runconfig.Defaults()
	net, err := model.ReadNetwork(builtin.Open())
	if err != nil {
		b.Fatal(err)
	}
	srv, err := model.NewServer(net, cfg.Server)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	sp := newSelfPlayer(srv, cfg, 1)
	n := cfg.SelfPlay.ParallelGames
	plies := 0
	round := uint64(0)
	for b.Loop() {
		stats, err := sp.runSelfPlay(context.Background(), n, n, round, func(int, SelfPlayGame) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		plies += stats.Plies
		round++
	}
	st := srv.Stats()
	b.ReportMetric(float64(plies)/b.Elapsed().Seconds(), "plies/s")
	b.ReportMetric(float64(st.Positions)/b.Elapsed().Seconds(), "evals/s")
	b.ReportMetric(float64(st.Positions)/float64(max(st.Batches, 1)), "batch")
}
