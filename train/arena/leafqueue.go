package arena

import (
	"errors"
	"fmt"
	"sync"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
)

// The leaves of an evaluator player's searches (see [CallerPlayers]).
// Its games play on the arena's goroutines, and so do their searches:
// each search queues its batch of leaves in its player's leafQueue, one
// for all the games of that player, and waits. The caller takes every
// leaf queued (next), which writes their observations and masks into its
// arrays, evaluates them at once and hands the logits and values back
// (feed), which lets the searches go on: each turns its rows into priors
// with the queue's PriorsFunc.

// leafQueue is the evaluator of a run's searches and the queue of their
// leaves waiting for the caller.
type leafQueue struct {
	mu sync.Mutex
	// changed is signalled when leaves are queued, a fed row was bad or
	// the run is over: what the caller waits for in next.
	changed *sync.Cond
	// queue holds the requests waiting for the next batch, queued the
	// number of positions in them; taken those of the batch the caller is
	// evaluating, taken positions in all.
	queue  []*leafRequest
	queued int
	taken  []*leafRequest
	nTaken int
	// maxLeaves is the most leaves one search asks for at once: the
	// caller's arrays must hold that many.
	maxLeaves int
	// priors makes the priors of the caller's logits.
	priors mcts.PriorsFunc
	// failed is the error that stops the run, after which every request
	// fails at once; over says the run has ended (err its outcome).
	failed error
	over   bool
	err    error
	// ended is closed when the run has ended.
	ended chan struct{}
	// reading counts the searches turning the batch being fed into
	// priors, each on its own goroutine (across the cores), and feedErr
	// is the error of the first bad row, badRow.
	reading sync.WaitGroup
	feedErr error
	badRow  int
}

// leafRequest is one search's batch of leaves, in the form mcts.Evaluator
// gets it, and while it is being fed, its rows of the caller's batch.
type leafRequest struct {
	obs    []float32
	legal  [][]env.Action
	priors [][]float32
	values []float32
	done   chan error
	// fedLogits and fedValues are the caller's rows for the leaves, the
	// first of them row fedRow of the batch; nil when not being fed.
	fedLogits, fedValues []float32
	fedRow               int
}

// leafArrays are the caller's arrays for a batch: observations and masks
// of capacity positions.
type leafArrays struct {
	obs      []float32
	mask     []bool
	capacity int
}

// write writes the observations and masks of leaves from row on.
func (a leafArrays) write(row int, obs []float32, legals [][]env.Action) {
	copy(a.obs[row*env.ObservationSize:], obs)
	m := a.mask[row*env.NumActions : (row+len(legals))*env.NumActions]
	clear(m)
	for j, legal := range legals {
		for _, a := range legal {
			m[j*env.NumActions+int(a)] = true
		}
	}
}

// check checks that the arrays hold capacity positions, at least maxLeaves.
func (a leafArrays) check(maxLeaves int) error {
	if err := errors.Join(checkLen("observations", a.obs, a.capacity*env.ObservationSize), checkLen("masks", a.mask, a.capacity*env.NumActions)); err != nil || a.obs == nil || a.mask == nil {
		return fmt.Errorf("next batch: want arrays for %d positions: %w", a.capacity, err)
	}
	if a.capacity < maxLeaves {
		return fmt.Errorf("next batch: arrays for %d positions: want at least batch_size, %d, as one search asks for that many leaves at once", a.capacity, maxLeaves)
	}
	return nil
}

// set turns the caller's rows into the leaves' priors and values, or
// returns the first bad row and its error.
func (r *leafRequest) set(priors mcts.PriorsFunc) (int, error) {
	for j := range r.values {
		if err := priors.SetLeaf(r.priors[j], &r.values[j], r.legal[j], r.fedLogits[j*env.NumActions:(j+1)*env.NumActions], r.fedValues[j], r.fedRow+j); err != nil {
			return r.fedRow + j, err
		}
	}
	return 0, nil
}

// newLeafQueue returns the queue of a player's searches, each asking for
// at most maxLeaves leaves at once, whose priors priors makes.
func newLeafQueue(maxLeaves int, priors mcts.PriorsFunc) *leafQueue {
	q := &leafQueue{maxLeaves: maxLeaves, priors: priors, ended: make(chan struct{})}
	q.changed = sync.NewCond(&q.mu)
	return q
}

// Evaluate implements mcts.Evaluator: it queues the leaves and waits for
// the caller's evaluation.
func (q *leafQueue) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	r := requests.Get().(*leafRequest)
	r.obs, r.legal, r.priors, r.values = obs, legal, priors, values
	q.mu.Lock()
	if q.failed != nil {
		q.mu.Unlock()
		requests.Put(r)
		return q.failed
	}
	q.queue = append(q.queue, r)
	q.queued += len(values)
	q.changed.Signal()
	q.mu.Unlock()
	err := <-r.done
	if err == nil && r.fedLogits != nil {
		var bad int
		if bad, err = r.set(q.priors); err != nil {
			q.mu.Lock()
			if q.feedErr == nil || bad < q.badRow {
				q.feedErr, q.badRow = err, bad
			}
			q.changed.Signal()
			q.mu.Unlock()
		}
		r.fedLogits, r.fedValues = nil, nil
		q.reading.Done()
	}
	r.obs, r.legal, r.priors, r.values = nil, nil, nil, nil
	requests.Put(r)
	return err
}

// requests recycles leafRequests and their channels.
var requests = sync.Pool{New: func() any { return &leafRequest{done: make(chan error, 1)} }}

// end records the end of the run, with its error, and wakes the caller.
// The searches have all returned.
func (q *leafQueue) end(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.failed != nil {
		err = q.failed
	}
	q.over, q.err = true, err
	close(q.ended)
	q.changed.Broadcast()
}

// fail stops the run: the waiting searches and those that ask later get
// err. It waits for the run to end.
func (q *leafQueue) fail(err error) {
	q.mu.Lock()
	if q.failed == nil {
		q.failed = err
	}
	for _, r := range append(q.queue, q.taken...) {
		r.done <- q.failed
	}
	q.queue, q.queued, q.taken, q.nTaken = q.queue[:0], 0, q.taken[:0], 0
	q.changed.Broadcast()
	q.mu.Unlock()
	<-q.ended
}

// next waits for leaves, writes the observations and masks of all those
// queued that fit into the caller's arrays (room for capacity positions)
// and returns their number; 0 when the run has ended well, or its error.
func (q *leafQueue) next(obs []float32, mask []bool, capacity int) (int, error) {
	dst := leafArrays{obs: obs, mask: mask, capacity: capacity}
	if err := dst.check(q.maxLeaves); err != nil {
		return 0, err
	}
	q.mu.Lock()
	if q.nTaken > 0 {
		q.mu.Unlock()
		return 0, fmt.Errorf("next batch: the batch of %d positions was not fed back (call feed, or abort)", q.nTaken)
	}
	for {
		for !q.over && q.feedErr == nil && q.queued == 0 {
			q.changed.Wait()
		}
		q.mu.Unlock()
		// The searches have read the batch fed last.
		q.reading.Wait()
		q.mu.Lock()
		if err := q.feedErr; err != nil {
			q.mu.Unlock()
			q.fail(err)
			return 0, err
		}
		if q.over {
			q.mu.Unlock()
			return 0, q.err
		}
		if q.queued > 0 {
			break
		}
	}
	defer q.mu.Unlock()
	n := 0
	for len(q.queue) > 0 && n+len(q.queue[0].values) <= capacity {
		r := q.queue[0]
		q.queue = q.queue[1:]
		dst.write(n, r.obs, r.legal)
		q.taken = append(q.taken, r)
		n += len(r.values)
	}
	q.queued -= n
	q.nTaken = n
	return n, nil
}

// feed hands the caller's logits and values of the batch next returned
// to the searches, which turn them into priors over the legal actions,
// each search its own leaves, across the cores. It returns at once: the
// caller must keep the arrays unchanged until the next call of next,
// which waits until the searches have read them. A value that is not in
// [-1, 1] or a legal logit that is not finite stops the run, and that
// next returns the error once the searches have returned.
func (q *leafQueue) feed(logits, values []float32, n int) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.nTaken == 0 {
		return errors.New("feed: no batch to feed (call next first)")
	}
	if n != q.nTaken {
		return fmt.Errorf("feed: %d positions for a batch of %d", n, q.nTaken)
	}
	if err := errors.Join(checkLen("logits", logits, n*env.NumActions), checkLen("values", values, n)); err != nil || logits == nil || values == nil {
		return fmt.Errorf("feed: want logits and values for %d positions: %w", n, err)
	}
	row := 0
	q.reading.Add(len(q.taken))
	for _, r := range q.taken {
		k := len(r.values)
		r.fedLogits, r.fedValues, r.fedRow = logits[row*env.NumActions:(row+k)*env.NumActions], values[row:row+k], row
		row += k
		r.done <- nil
	}
	q.taken, q.nTaken = q.taken[:0], 0
	return nil
}

// checkLen reports a buffer (nil for none) whose length is not want.
func checkLen[T any](what string, buf []T, want int) error {
	if buf != nil && len(buf) != want {
		return fmt.Errorf("%s has %d entries, want %d", what, len(buf), want)
	}
	return nil
}
