package distributed

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deathstacks/deathstacks/train"
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
	res, err := l.Collect(ctx, train.RemoteRequest{MinGames: 1, First: true}, func(train.Sample) error { added++; return nil })
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
		res, err := l.Collect(ctx, train.RemoteRequest{Cursor: cursor, MinGames: b.N - taken}, buf.Add)
		if err != nil {
			b.Fatal(err)
		}
		cursor, taken = res.Cursor, taken+res.Games
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(positions)/float64(b.N), "positions/game")
}
