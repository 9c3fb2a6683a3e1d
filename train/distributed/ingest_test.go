package distributed

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/remotegames"
	"github.com/deathstacks/deathstacks/train/replay"
	"github.com/deathstacks/deathstacks/train/testctx"
)

// TestLearnerReadsAhead: told where the run goes on from, the learner
// reads, checks and replays the games stored before the run's first
// Collect (up to its games ahead); a Collect cut short takes none of them
// from the ingester, and the first Collect then takes them all, from the
// ingester that read them, each once.
func TestLearnerReadsAhead(t *testing.T) {
	const stored = 6
	dir := t.TempDir()
	cfg := testConfig(t, dir)
	s := startServer(t, dir)
	l, nc := newLearner(t, s, cfg, dir)
	games := selfPlayGames(t, cfg, 2)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	positions := 0
	for i := range stored {
		m := gameMessage(t, games[i%len(games)], l.runID, "actor", uint64(i+1))
		if _, err := js.Publish(ctx, gamesSubject, m.data, jetstream.WithMsgID(m.id)); err != nil {
			t.Fatal(err)
		}
		positions += m.positions
	}
	if err := l.ReadAhead(nil); err != nil {
		t.Fatal(err)
	}
	g := l.ing
	ready := func() int {
		g.mu.Lock()
		defer g.mu.Unlock()
		return len(g.ready)
	}
	testctx.WaitUntil(t, "the games read ahead", func() bool { return ready() == stored })
	for _, c := range g.ready {
		if c.err != nil || len(c.samples) == 0 {
			t.Fatalf("game at sequence %d read ahead: %d samples, error %v", c.seq, len(c.samples), c.err)
		}
	}

	ended, end := context.WithCancel(ctx)
	end()
	if games := g.next(ended, 0); len(games) != 0 || ready() != stored {
		t.Fatalf("a Collect cut short took %d games from the ingester, %d left of %d", len(games), ready(), stored)
	}

	var ids idSet
	l.ingested = ids.add
	added := 0
	res, err := l.Collect(ctx, remotegames.Request{MinGames: 1, First: true}, func(train.Sample) error { added++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if res.Games != stored || added != positions || ids.len() != stored {
		t.Errorf("the first Collect took %d games (%d distinct), %d positions; want the %d read ahead, %d positions", res.Games, ids.len(), added, stored, positions)
	}
	if l.ing != g {
		t.Error("the first Collect started another ingester: the games read ahead were read again")
	}
}

// TestLearnerTakesEveryTarget: games played on this machine, sent over
// NATS and taken by a learner, reach the run with every sample and
// target self-play built for them: a learner that plays no games itself
// trains its auxiliary heads and weighs by surprise on the actors'.
func TestLearnerTakesEveryTarget(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(t, dir)
	allTargets(&cfg)
	s := startServer(t, dir)
	l, nc := newLearner(t, s, cfg, dir)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var want []model.Sample
	sent := 0
	for i, g := range selfPlayGames(t, cfg, 6) {
		if len(g.Samples) == 0 {
			continue // an actor sends none such
		}
		m := gameMessage(t, g, l.runID, "actor", uint64(i+1))
		if _, err := js.Publish(ctx, gamesSubject, m.data, jetstream.WithMsgID(m.id)); err != nil {
			t.Fatal(err)
		}
		want, sent = append(want, g.Samples...), sent+1
	}
	var got []model.Sample
	res, err := l.Collect(ctx, remotegames.Request{MinGames: sent, First: true}, func(s train.Sample) error {
		// The learner's memory goes to the next games: the buffer copies.
		s.Obs, s.Legal, s.Policy = slices.Clone(s.Obs), slices.Clone(s.Legal), slices.Clone(s.Policy)
		s.ReplyLegal, s.Reply, s.Ownership = slices.Clone(s.ReplyLegal), slices.Clone(s.Reply), slices.Clone(s.Ownership)
		got = append(got, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Games != sent || res.Invalid != 0 {
		t.Fatalf("took %d games (%d invalid), want %d", res.Games, res.Invalid, sent)
	}
	if j, diff := firstDifference(got, want); diff != "" {
		t.Fatalf("sample %d: %s differs from the one played", j, diff)
	}
}

// BenchmarkIngest measures the learner's way from the stream to the replay
// buffer, as a run takes its games: b.N games stored first, then read,
// checked and replayed (on every core) and added to a replay buffer by
// Collects, with the server in the same process.
func BenchmarkIngest(b *testing.B) {
	cfg, l, nc, games := benchLearner(b)
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(4*publishWindow))
	if err != nil {
		b.Fatal(err)
	}
	positions := 0
	for i := range b.N {
		m := gameMessage(b, games[i%len(games)], l.runID, "bench", uint64(i+1))
		if _, err := js.PublishAsync(gamesSubject, m.data, jetstream.WithMsgID(m.id)); err != nil {
			b.Fatal(err)
		}
		positions += m.positions
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-time.After(time.Minute):
		b.Fatal("the games were not all acknowledged within a minute")
	}
	buf, err := replay.New(cfg.Replay)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var cursor json.RawMessage
	b.ReportAllocs()
	b.ResetTimer()
	for taken := 0; taken < b.N; {
		res, err := l.Collect(ctx, remotegames.Request{Cursor: cursor, MinGames: b.N - taken}, buf.Add)
		if err != nil {
			b.Fatal(err)
		}
		cursor, taken = res.Cursor, taken+res.Games
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(positions)/float64(b.N), "positions/game")
}
