package distributed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// publishWindow is how many games an actor has in flight at once: sent
// as asynchronous publishes, their acknowledgements awaited together.
const publishWindow = 64

// ackWait bounds the wait for a window's acknowledgements; the games not
// acknowledged by then go again, with the same message ids.
const ackWait = 5 * time.Second

// queuedHeader carries, in each game's message, when its actor queued it
// (Unix nanoseconds, the actor's clock): the learner measures the delay
// from there to the game's positions entering its window.
const queuedHeader = "Deathstacks-Queued"

// publisher sends one actor's finished games to the stream: up to
// publishWindow of them at once as asynchronous publishes, whose
// acknowledgements it awaits together. A game stays in the queue until the
// server acknowledges it and goes again, with the same message id, after
// any failure: a publish that timed out may have been stored, and its
// retry is then taken as a duplicate.
//
// A full stream (the learner has not caught up) refuses games: they stay
// in the queue and go again every second, and the queue, once full, holds
// the actor back (see [queue.push]).
type publisher struct {
	js    jetstream.JetStream
	queue *queue
	actor string
	log   io.Writer

	mu        sync.Mutex
	sent      int64
	positions int64
	refusing  bool // the server refused the last window

	// published and refused, when set (by tests), hear the id of each
	// game the server acknowledged or refused.
	published, refused func(id string)
}

// newPublisher makes the publisher of one actor's queue over nc.
func newPublisher(nc *nats.Conn, actor string, q *queue, log io.Writer) (*publisher, error) {
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(2*publishWindow), jetstream.WithPublishAsyncTimeout(ackWait))
	if err != nil {
		return nil, err
	}
	return &publisher{js: js, queue: q, actor: actor, log: log}, nil
}

// run sends the queued games until the queue is closed and empty, or ctx
// ends.
func (p *publisher) run(ctx context.Context) {
	var batch []message
	for ctx.Err() == nil {
		batch = p.queue.front(ctx, publishWindow, batch[:0])
		if len(batch) == 0 {
			return
		}
		err := p.publish(ctx, batch)
		var refused *jetstream.APIError
		switch {
		case errors.As(err, &refused):
			if !p.setRefusing(true) {
				fmt.Fprintf(p.log, "actor %s: the server refuses games (%v): keeping them, trying again every second\n", p.actor, err)
			}
			sleep(ctx, time.Second)
		case err != nil:
			sleep(ctx, 250*time.Millisecond)
		case p.setRefusing(false):
			fmt.Fprintf(p.log, "actor %s: the server takes games again\n", p.actor)
		}
	}
}

// setRefusing records whether the server refuses games and returns what
// it was before.
func (p *publisher) setRefusing(on bool) (was bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	was, p.refusing = p.refusing, on
	return was
}

// publish sends batch and waits for its acknowledgements; the games
// acknowledged leave the queue. It returns the first error of the others.
func (p *publisher) publish(ctx context.Context, batch []message) error {
	futures := make([]jetstream.PubAckFuture, 0, len(batch))
	var first error
	for _, m := range batch {
		msg := nats.NewMsg(gamesSubject)
		msg.Data = m.data
		msg.Header.Set(queuedHeader, strconv.FormatInt(m.queued.UnixNano(), 10))
		f, err := p.js.PublishMsgAsync(msg, jetstream.WithMsgID(m.id))
		if err != nil {
			first = err // the rest go with the next window
			break
		}
		futures = append(futures, f)
	}
	timeout := time.NewTimer(ackWait)
	defer timeout.Stop()
	var acked []string
	var positions int64
wait:
	for i, f := range futures {
		select {
		case <-f.Ok():
			acked = append(acked, batch[i].id)
			positions += int64(batch[i].positions)
		case err := <-f.Err():
			if first == nil {
				first = err
			}
			if p.refused != nil && errors.As(err, new(*jetstream.APIError)) {
				p.refused(batch[i].id)
			}
		case <-timeout.C:
			if first == nil {
				first = fmt.Errorf("no acknowledgement within %v", ackWait)
			}
			break wait
		case <-ctx.Done():
			break wait
		}
	}
	p.queue.remove(acked)
	p.mu.Lock()
	p.sent += int64(len(acked))
	p.positions += positions
	p.mu.Unlock()
	if p.published != nil {
		for _, id := range acked {
			p.published(id)
		}
	}
	return first
}

// stats returns the games and positions the server acknowledged so far,
// and whether it refuses games now.
func (p *publisher) stats() (sent, positions int64, refusing bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sent, p.positions, p.refusing
}

// message is a game waiting to be sent.
type message struct {
	id        string
	data      []byte
	positions int
	queued    time.Time
}

// queue is an actor's bounded queue of games to send, oldest first.
type queue struct {
	mu      sync.Mutex
	items   []message
	limit   int
	closed  bool
	changed chan struct{} // closed at the next change
}

func newQueue(limit int) *queue { return &queue{limit: limit, changed: make(chan struct{})} }

// push appends m, waiting while the queue is full: an actor whose games
// the server does not take stops making more. It reports false if ctx
// ended first.
func (q *queue) push(ctx context.Context, m message) bool {
	defer q.mu.Unlock()
	if !await(ctx, &q.mu, &q.changed, func() bool { return len(q.items) < q.limit }, nil) {
		return false
	}
	q.items = append(q.items, m)
	notify(&q.changed)
	return true
}

// offer appends m unless the queue is full, and reports whether it did.
func (q *queue) offer(m message) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) >= q.limit {
		return false
	}
	q.items = append(q.items, m)
	notify(&q.changed)
	return true
}

// front waits for games and appends the oldest n of them to buf; nothing
// once the queue is closed and empty, or ctx ends.
func (q *queue) front(ctx context.Context, n int, buf []message) []message {
	defer q.mu.Unlock()
	await(ctx, &q.mu, &q.changed, func() bool { return len(q.items) > 0 || q.closed }, nil)
	return append(buf, q.items[:min(n, len(q.items))]...)
}

// remove takes the games of the given ids out of the queue.
func (q *queue) remove(ids []string) {
	if len(ids) == 0 {
		return
	}
	gone := make(map[string]bool, len(ids))
	for _, id := range ids {
		gone[id] = true
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	kept := q.items[:0]
	for _, m := range q.items {
		if !gone[m.id] {
			kept = append(kept, m)
		}
	}
	clear(q.items[len(kept):])
	q.items = kept
	notify(&q.changed)
}

func (q *queue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

// full reports that a push would wait.
func (q *queue) full() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items) >= q.limit
}

// close lets front return nothing once the queue is empty.
func (q *queue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	notify(&q.changed)
}

// await locks mu and waits, unlocking it meanwhile, until ready (called
// with mu held) reports true, ctx ends or stop fires; it returns with mu
// held, and whether ready reported true. *changed is closed at each change
// of what ready looks at (see [notify]).
func await(ctx context.Context, mu *sync.Mutex, changed *chan struct{}, ready func() bool, stop <-chan time.Time) bool {
	mu.Lock()
	for !ready() {
		ch := *changed
		mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			mu.Lock()
			return false
		case <-stop:
			mu.Lock()
			return false
		}
		mu.Lock()
	}
	return true
}

// notify wakes the goroutines in [await] on changed; the caller holds
// their mutex.
func notify(changed *chan struct{}) {
	close(*changed)
	*changed = make(chan struct{})
}
