package distributed

import (
	"context"
	"testing"
	"time"
)

// BenchmarkPublishGame measures what sending a finished game costs an
// actor: its record made and encoded, published in a window and
// acknowledged, with the server in the same process (its work counted
// too: an upper bound of the actor's own).
func BenchmarkPublishGame(b *testing.B) {
	dir := b.TempDir()
	cfg := testConfig(b, dir)
	cfg.Distributed.StreamMaxGames = 1 << 30
	s := startServer(b, dir)
	l, nc := newLearner(b, s, cfg, dir)
	games := selfPlayGames(b, cfg, 4)
	q := newQueue(cfg.Distributed.QueueGames)
	p, err := newPublisher(nc, "bench", q, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); p.run(ctx) }()
	bytes := 0
	b.ResetTimer()
	for i := range b.N {
		g := games[i%len(games)]
		r, err := newRecord(g, l.runID, "bench", uint64(i+1), 0)
		if err != nil {
			b.Fatal(err)
		}
		data, err := r.encode()
		if err != nil {
			b.Fatal(err)
		}
		bytes += len(data)
		if !q.push(ctx, message{id: r.id(), data: data, positions: len(g.Samples), queued: time.Now()}) {
			b.Fatal("queue closed")
		}
	}
	q.close()
	<-done
	b.StopTimer()
	if sent, _, _ := p.stats(); sent != int64(b.N) {
		b.Fatalf("%d games acknowledged of %d", sent, b.N)
	}
	b.ReportMetric(float64(bytes)/float64(b.N), "bytes/game")
}
