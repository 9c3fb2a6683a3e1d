package distributed

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

func ids(ms []message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.id)
	}
	return out
}

// TestQueueHoldsBack: a full queue refuses an offer and holds a push until
// a game leaves; front gives the oldest games, nothing once closed and
// empty.
func TestQueueHoldsBack(t *testing.T) {
	ctx := context.Background()
	q := newQueue(3)
	for i := range 3 {
		if !q.offer(message{id: fmt.Sprint(i)}) {
			t.Fatalf("offer %d refused below the limit", i)
		}
	}
	if q.offer(message{id: "3"}) || !q.full() {
		t.Fatal("a full queue took an offer")
	}
	pushed := make(chan bool)
	go func() { pushed <- q.push(ctx, message{id: "3"}) }()
	if got := ids(q.front(ctx, 2, nil)); !slices.Equal(got, []string{"0", "1"}) {
		t.Errorf("front 2: %v, want the oldest two", got)
	}
	q.remove([]string{"1"})
	if !<-pushed {
		t.Fatal("push failed")
	}
	if got := ids(q.front(ctx, 10, nil)); !slices.Equal(got, []string{"0", "2", "3"}) {
		t.Errorf("front: %v, want 0 2 3", got)
	}
	stopped, stop := context.WithCancel(ctx)
	go func() { pushed <- q.push(stopped, message{id: "4"}) }()
	stop()
	if <-pushed {
		t.Error("a push into a full queue returned true after its context ended")
	}
	q.remove([]string{"0", "2", "3"})
	q.close()
	if got := q.front(ctx, 10, nil); len(got) != 0 {
		t.Errorf("front of a closed, empty queue: %v", ids(got))
	}
}

// BenchmarkPublishGame measures what sending a finished game costs an
// actor: its record made and encoded, published in a window and
// acknowledged, with the server in the same process (its work counted
// too: an upper bound of the actor's own).
func BenchmarkPublishGame(b *testing.B) {
	cfg, l, nc, games := benchLearner(b)
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
		m := gameMessage(b, games[i%len(games)], l.runID, "bench", uint64(i+1))
		bytes += len(m.data)
		if !q.push(ctx, m) {
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
