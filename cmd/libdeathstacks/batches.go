package main

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
)

// Searches guided by the caller's evaluator (a Python function). The
// library never calls into the caller: control is inverted. The searches
// (of search.go, or the self-play games of selfplay.go) run on goroutines
// of their own, and their evaluator, a leafQueue, queues each batch of
// leaves and waits. The caller asks for the queued leaves with
// ds_batch_next, which returns once every search in progress waits (or
// the leaves fill the caller's arrays), with their observations and
// masks written there; it evaluates them all at once and hands the logits
// and values back with ds_batch_feed, which turns them into priors as the
// network's evaluator does (model.LegalSoftmax) and lets the searches go
// on. ds_batch_next returns 0 once every search has finished. One batch a
// round across all the searches, as mctx batches its roots.
//
// ds_batch_round is both in one call, the cheaper way: it feeds a batch
// and returns the next one into the caller's arrays. While the caller
// waits for a batch (in either call), the searches write their leaves
// straight into its arrays, each its own rows, across the cores; only the
// leaves queued while the caller was away are copied by the caller's
// thread. The searches wake the caller once, when its batch is ready: a
// thread of the caller's, locked to its goroutine in a call from C, costs
// two hand-overs between threads each time it wakes.

// leafQueue is the evaluator of a run's searches and the queue of their
// leaves waiting for the caller.
type leafQueue struct {
	mu sync.Mutex
	// changed is signalled when the caller's batch is ready, a fed row was
	// bad or the run is over: what the caller waits for in next.
	changed *sync.Cond
	// queue holds the requests waiting for the next batch, queued the
	// number of positions in them; taken those of the batch the caller is
	// evaluating, taken positions in all.
	queue  []*leafRequest
	queued int
	taken  []*leafRequest
	nTaken int
	// parallel is how many searches run at once, remaining how many
	// searches have yet to end: min(parallel, remaining) are in progress,
	// and a batch is ready once that many wait.
	parallel, remaining int
	// maxLeaves is the most leaves one search asks for at once: the
	// caller's arrays must hold that many.
	maxLeaves int
	// dst holds the caller's arrays while it waits for a batch (from the
	// feed of ds_batch_round on): requests queued meanwhile write their
	// leaves there themselves, at rows given out in the order of the
	// queue while open; filled rows are given out, and writing requests
	// are still writing theirs. Empty while the caller holds the arrays.
	dst     leafArrays
	open    bool
	filled  int
	writing int
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
	// row is the first of the leaves' rows in the caller's arrays, -1
	// for none yet; written says the search wrote them there itself.
	row     int
	written bool
}

// leafArrays are the caller's arrays for a batch: observations and masks
// of capacity positions.
type leafArrays struct {
	obs      []float32
	mask     []bool
	capacity int
}

// write writes the observations and masks of r's leaves at its rows.
func (a leafArrays) write(r *leafRequest) {
	k := len(r.values)
	copy(a.obs[r.row*env.ObservationSize:], r.obs)
	m := a.mask[r.row*env.NumActions : (r.row+k)*env.NumActions]
	clear(m)
	for j, legal := range r.legal {
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
func (r *leafRequest) set() (int, error) {
	for j := range r.values {
		if err := setLeaf(r, j, r.fedLogits[j*env.NumActions:(j+1)*env.NumActions], r.fedValues[j], r.fedRow+j); err != nil {
			return r.fedRow + j, err
		}
	}
	return 0, nil
}

// errAborted is how the caller's abort reaches the searches.
var errAborted = errors.New("the evaluator failed: the searches were stopped")

// newLeafQueue returns the queue of a run of searches, parallel of them
// at a time, each asking for at most maxLeaves leaves at once.
func newLeafQueue(parallel, searches, maxLeaves int) *leafQueue {
	q := &leafQueue{parallel: parallel, remaining: searches, maxLeaves: maxLeaves, ended: make(chan struct{})}
	q.changed = sync.NewCond(&q.mu)
	return q
}

// Evaluate implements mcts.Evaluator: it queues the leaves and waits for
// the caller's evaluation.
func (q *leafQueue) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	r := requests.Get().(*leafRequest)
	r.obs, r.legal, r.priors, r.values, r.row, r.written = obs, legal, priors, values, -1, false
	q.mu.Lock()
	if q.failed != nil {
		q.mu.Unlock()
		requests.Put(r)
		return q.failed
	}
	q.queue = append(q.queue, r)
	q.queued += len(values)
	q.giveRow(r)
	dst, writes := q.dst, r.row >= 0
	if writes {
		q.writing++
	} else {
		q.signalReady()
	}
	q.mu.Unlock()
	if writes {
		dst.write(r)
		q.mu.Lock()
		r.written = true
		q.writing--
		q.signalReady()
		q.mu.Unlock()
	}
	err := <-r.done
	if err == nil && r.fedLogits != nil {
		var bad int
		if bad, err = r.set(); err != nil {
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

// searchEnded records the end of one search.
func (q *leafQueue) searchEnded() {
	q.mu.Lock()
	q.remaining--
	q.signalReady()
	q.mu.Unlock()
}

// giveRow gives r the next rows of the caller's arrays, if they are open
// and r fits; the first that does not fit closes them. The caller holds
// q.mu.
func (q *leafQueue) giveRow(r *leafRequest) {
	if !q.open {
		return
	}
	if k := len(r.values); q.filled+k <= q.dst.capacity {
		r.row, q.filled = q.filled, q.filled+k
		return
	}
	q.open = false
}

// setArrays makes dst the caller's arrays of the next batch and gives
// rows to the requests queued already. The caller holds q.mu.
func (q *leafQueue) setArrays(dst leafArrays) {
	q.dst, q.open, q.filled = dst, true, 0
	for _, r := range q.queue {
		q.giveRow(r)
	}
}

// signalReady wakes the caller waiting for its batch once it is ready.
// The caller holds q.mu.
func (q *leafQueue) signalReady() {
	if q.dst.obs != nil && q.ready(q.dst.capacity) {
		q.changed.Signal()
	}
}

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
	q.dst, q.open = leafArrays{}, false
	q.changed.Broadcast()
	q.mu.Unlock()
	<-q.ended
}

// ready reports whether a batch can go: every search in progress waits,
// or the queued positions fill capacity; and no search is still writing
// its leaves into the caller's arrays.
func (q *leafQueue) ready(capacity int) bool {
	return q.queued > 0 && q.writing == 0 && (len(q.queue) >= min(q.parallel, q.remaining) || q.queued >= capacity)
}

// next waits for a batch, writes its observations and masks into the
// caller's arrays (room for capacity positions) and returns its size; 0
// when the run has ended well, or its error.
func (q *leafQueue) next(obs []float32, mask []bool, capacity int) (int, error) {
	dst := leafArrays{obs: obs, mask: mask, capacity: capacity}
	if err := dst.check(q.maxLeaves); err != nil {
		return 0, err
	}
	return q.nextInto(dst)
}

// nextInto is next into checked arrays.
func (q *leafQueue) nextInto(dst leafArrays) (int, error) {
	q.mu.Lock()
	if q.nTaken > 0 {
		q.mu.Unlock()
		return 0, fmt.Errorf("next batch: the batch of %d positions was not fed back (call feed, or abort)", q.nTaken)
	}
	if q.dst.obs == nil {
		q.setArrays(dst)
	}
	for {
		for !q.over && q.feedErr == nil && !q.ready(dst.capacity) {
			q.changed.Wait()
		}
		q.mu.Unlock()
		// The searches have read the batch fed last: those of a batch
		// cut at capacity may still be reading.
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
		if q.ready(dst.capacity) {
			break
		}
	}
	defer q.mu.Unlock()
	n := 0
	for len(q.queue) > 0 && q.queue[0].row >= 0 {
		r := q.queue[0]
		q.queue = q.queue[1:]
		if !r.written {
			dst.write(r)
		}
		r.row = -1
		q.taken = append(q.taken, r)
		n += len(r.values)
	}
	if n == 0 {
		// A search's batch larger than the arrays: refused by check, as
		// no search asks for more than maxLeaves, so this cannot happen.
		return 0, fmt.Errorf("next batch: %d leaves of one search do not fit %d positions", len(q.queue[0].values), dst.capacity)
	}
	q.queued -= n
	q.dst, q.open = leafArrays{}, false
	q.nTaken = n
	return n, nil
}

// round feeds the batch of n positions taken last (none when n is 0) and
// returns the next batch as next does, the searches writing its leaves
// into dst as they queue them: ds_batch_round.
func (q *leafQueue) round(logits, values []float32, n int, dst leafArrays) (int, error) {
	if err := dst.check(q.maxLeaves); err != nil {
		return 0, err
	}
	if n > 0 {
		if err := q.feedInto(logits, values, n, dst); err != nil {
			return 0, err
		}
	}
	return q.nextInto(dst)
}

// feed hands the caller's logits and values of the batch next returned
// to the searches, which turn them into priors over the legal actions,
// each search its own leaves, across the cores. It returns at once: the
// caller must keep the arrays unchanged until the next call of next,
// which waits until the searches have read them. A value that is not in
// [-1, 1] or a legal logit that is not finite stops the run, and that
// next returns the error once the searches have returned.
func (q *leafQueue) feed(logits, values []float32, n int) error {
	return q.feedInto(logits, values, n, leafArrays{})
}

// feedInto is feed, the searches writing the leaves they queue next into
// dst (unless empty) for the caller's next batch.
func (q *leafQueue) feedInto(logits, values []float32, n int, dst leafArrays) error {
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
	if dst.obs != nil {
		q.setArrays(dst)
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

// setLeaf sets leaf j of r from its row of the caller's batch: the
// priors the network's evaluator would make of the logits.
func setLeaf(r *leafRequest, j int, logits []float32, value float32, row int) error {
	if !(value >= -1 && value <= 1) {
		return fmt.Errorf("feed: values[%d] is %v: want a number in [-1, 1]", row, value)
	}
	r.values[j] = value
	if err := model.LegalSoftmax(r.priors[j], logits, r.legal[j]); err != nil {
		for _, a := range r.legal[j] {
			if l := float64(logits[a]); math.IsNaN(l) || math.IsInf(l, 0) {
				return fmt.Errorf("feed: logits[%d, %d] is %v: the logits of legal actions must be finite", row, a, l)
			}
		}
		return fmt.Errorf("feed: row %d: %w", row, err)
	}
	return nil
}

// underWay reports whether q (nil for none) is a run that has not ended.
func (q *leafQueue) underWay() bool {
	if q == nil {
		return false
	}
	select {
	case <-q.ended:
		return false
	default:
		return true
	}
}

// outcome reports why the results of q (nil for none) cannot be read: no
// run, a run under way or a failed one; nil once it has ended well.
func (q *leafQueue) outcome() error {
	switch {
	case q == nil:
		return errors.New("nothing has run")
	case q.underWay():
		return errors.New("the run is under way: evaluate its leaves to the end first")
	case q.err != nil:
		return fmt.Errorf("the last run failed: %w", q.err)
	}
	return nil
}

// abort stops the run after the caller's evaluator failed, and returns
// once every search has returned.
func (q *leafQueue) abort() { q.fail(errAborted) }
