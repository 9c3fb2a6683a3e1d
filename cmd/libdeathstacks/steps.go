package main

import (
	"errors"
	"fmt"
	"iter"
	"runtime"
	"sync/atomic"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
)

// Searches guided by the caller's evaluator (a Python function), stepped
// by the caller's own calls. The library never calls into the caller:
// control is inverted. A run (the searches of search.go, the self-play
// games of selfplay.go) is a set of slots, each a function that searches
// with an evaluator of its own: one search, or game after game. Each slot
// runs as a coroutine (iter.Pull); when its search asks for an
// evaluation, its evaluator writes the leaves' observations and masks into
// the caller's arrays and yields. The caller's call (ds_batch_round, or
// ds_batch_next after ds_batch_feed) is a round: it turns the logits and
// values of the batch evaluated last into the priors of those leaves,
// steps each slot on to its next leaves, and returns the new batch. One
// batch a round across all the searches, as mctx batches its roots.
//
// The caller's thread steps a share of the slots itself and one worker
// goroutine for each further processor steps the rest, each in its own
// rows of the caller's arrays, so a round runs on every core and no
// thread sleeps while another works for it: a call from C is locked to
// its thread, and every wait of a locked thread hands its processor to
// another thread and back, which costs tens of microseconds a round. A
// worker waits for the next round spinning a little before it sleeps, and
// so does the caller for the workers' shares. A coroutine created on a
// locked thread can only be resumed on that thread, so the caller's share
// belongs to the thread of the run's first round, and a round from
// another thread is refused (Python drives a run in one call, on one
// thread).

// slotWork is a slot's work: its searches, with eval for their leaves.
type slotWork func(eval mcts.Evaluator) error

// stepRun is a run of slots stepped by the caller's rounds.
type stepRun struct {
	maxLeaves int
	slots     []*slot
	// drivers step the slots: drivers[0] on the caller's thread, the rest
	// on workers (see worker); slot i belongs to driver i % len(drivers).
	drivers []*driver
	workers []*worker
	// thread is the caller's thread (see callerThread), set by the first
	// round: the thread its share of the coroutines belongs to.
	thread    uintptr
	hasThread bool
	// taken is the size of the batch the caller is evaluating, fed says
	// it has been fed back with logits and values.
	taken          int
	fed            bool
	logits, values []float32
	// dst holds the caller's arrays during a round; used counts the rows
	// written; rounds counts the rounds.
	dst    leafArrays
	used   atomic.Int64
	rounds int
	// over says the run has ended, err with its outcome.
	over bool
	err  error
}

// slot is one coroutine of a run.
type slot struct {
	run   *stepRun
	work  slotWork
	next  func() (struct{}, bool)
	stop  func()
	yield func(struct{}) bool
	// done says the work has returned, err its error.
	done bool
	err  error
	// row is the first row of its leaves in the batch being evaluated, -1
	// for none; legal, priors and values are the leaves' own.
	row    int
	legal  [][]env.Action
	priors [][]float32
	values []float32
}

// errAborted is how the caller's abort reaches the searches.
var errAborted = errors.New("the evaluator failed: the searches were stopped")

// newStepRun returns a run of one slot per work, each asking for at most
// maxLeaves leaves at once, its slots shared among the caller's thread and
// a worker for each further processor.
func newStepRun(works []slotWork, maxLeaves int) *stepRun {
	r := &stepRun{maxLeaves: maxLeaves}
	nDrivers := max(1, min(runtime.GOMAXPROCS(0), len(works)))
	r.drivers = make([]*driver, nDrivers)
	for i := range r.drivers {
		r.drivers[i] = &driver{}
	}
	for i, w := range works {
		s := &slot{run: r, work: w, row: -1}
		r.slots = append(r.slots, s)
		d := r.drivers[i%nDrivers]
		d.slots = append(d.slots, s)
		d.live++
	}
	for _, d := range r.drivers[1:] {
		w := newWorker(d)
		r.workers = append(r.workers, w)
		go w.serve()
	}
	if len(works) == 0 {
		r.over = true
	}
	return r
}

// Evaluate implements mcts.Evaluator for the slot's searches: it writes
// the leaves into the caller's arrays and waits for the next round, which
// sets their priors and values.
func (s *slot) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	k := len(values)
	if k > s.run.maxLeaves {
		return fmt.Errorf("%d leaves at once: want at most %d", k, s.run.maxLeaves)
	}
	row := int(s.run.used.Add(int64(k))) - k
	s.run.dst.write(row, obs, legal)
	s.row, s.legal, s.priors, s.values = row, legal, priors, values
	if !s.yield(struct{}{}) {
		return errAborted
	}
	return nil
}

// resume runs the slot until its search asks for leaves, or its work
// ends. Its coroutine is created by its first resume, on the thread of its
// driver.
func (s *slot) resume() {
	if s.next == nil {
		s.next, s.stop = iter.Pull(func(yield func(struct{}) bool) {
			s.yield = yield
			s.err = guard(func() error { return s.work(s) })
		})
	}
	if _, ok := s.next(); !ok {
		s.done = true
	}
}

// abort stops the slot's work: its search's evaluation fails.
func (s *slot) abort() {
	if s.stop != nil {
		s.stop()
	}
	s.done = true
}

// setFed turns the caller's rows for the slot's leaves into their priors
// and values, or returns the first bad row and its error.
func (s *slot) setFed() (int, error) {
	r := s.run
	for j := range s.values {
		row := s.row + j
		if err := setLeaf(s.legal[j], s.priors[j], &s.values[j], r.logits[row*env.NumActions:(row+1)*env.NumActions], r.values[row], row); err != nil {
			return row, err
		}
	}
	s.row, s.legal, s.priors, s.values = -1, nil, nil, nil
	return 0, nil
}

// driver steps a share of a run's slots, on one thread.
type driver struct {
	slots []*slot
	// live counts the slots whose work goes on; from is where the next
	// round starts resuming, so that no slot waits behind another when
	// the caller's arrays do not hold every slot's leaves.
	live, from int
	// The outcome of its last step: the first bad row of the batch fed
	// (badRow, feedErr), and whether a slot failed.
	badRow  int
	feedErr error
	failed  bool
}

// step feeds the driver's slots whose leaves were in the batch evaluated
// last and resumes up to units of the live ones, each sure of maxLeaves
// rows of the caller's arrays.
func (d *driver) step(units int) {
	d.feedErr, d.failed = nil, false
	for _, s := range d.slots {
		if s.row < 0 {
			continue
		}
		if row, err := s.setFed(); err != nil && (d.feedErr == nil || row < d.badRow) {
			d.feedErr, d.badRow = err, row
		}
	}
	if d.feedErr != nil {
		return
	}
	n, from := len(d.slots), d.from
	for k := 0; k < n && units > 0; k++ {
		i := (from + k) % n
		s := d.slots[i]
		if s.done {
			continue
		}
		units--
		d.from = i + 1
		s.resume()
		if s.done {
			d.live--
			d.failed = d.failed || s.err != nil
		}
	}
}

// do does a job of a worker's.
func (d *driver) do(job, units int) {
	switch job {
	case jobStep:
		d.step(units)
	case jobAbort:
		d.abort()
	}
}

// abort stops the driver's slots that go on.
func (d *driver) abort() {
	for _, s := range d.slots {
		if !s.done {
			s.abort()
			d.live--
		}
	}
}

// Rounds of a worker: what the caller posts.
const (
	jobStep  = iota // step with units
	jobAbort        // abort the slots
	jobQuit         // return
)

// Spins of the caller and the workers before they sleep. The caller waits
// for a worker that is working: up to a millisecond or so. A worker waits
// for the caller's next round, which a trivial evaluator brings in some
// tens of microseconds and a network in milliseconds, while the network
// wants the cores: so a worker spins only a few microseconds, and a
// longer spin takes the cores from an evaluator that runs its own threads
// (PyTorch's) and slows self-play.
const (
	workerSpins = 1 << 12
	callerSpins = 1 << 20
)

// worker steps a driver's share of the slots on a goroutine of its own.
type worker struct {
	d *driver
	// posted counts the rounds the caller posted, job and units being the
	// last one's; finished the rounds done.
	posted, finished atomic.Int64
	job, units       int
	// wake and done carry a token when a round is posted and done, for a
	// side that stopped spinning.
	wake, done chan struct{}
}

func newWorker(d *driver) *worker {
	return &worker{d: d, wake: make(chan struct{}, 1), done: make(chan struct{}, 1)}
}

// post hands the worker its next round.
func (w *worker) post(job, units int) {
	w.job, w.units = job, units
	w.posted.Add(1)
	signal(w.wake)
}

// serve does the rounds the caller posts until told to quit.
func (w *worker) serve() {
	for round := int64(1); ; round++ {
		for i := 0; w.posted.Load() < round; i++ {
			if i >= workerSpins {
				<-w.wake
			} else if i%1024 == 1023 {
				runtime.Gosched()
			}
		}
		job := w.job
		// A panic here would end the caller's process: it fails the run.
		if err := guard(func() error { w.d.do(job, w.units); return nil }); err != nil {
			w.d.feedErr, w.d.badRow = err, -1
		}
		w.finished.Store(round)
		signal(w.done)
		if job == jobQuit {
			return
		}
	}
}

// wait waits for the worker to finish the round posted last.
func (w *worker) wait() {
	round := w.posted.Load()
	for i := 0; w.finished.Load() < round; i++ {
		if i >= callerSpins {
			<-w.done
		}
	}
}

// signal leaves a token in c unless one waits there.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// onThread checks that a round comes from the thread of the run's first
// one (thread 0: a caller not locked to a thread, as in tests).
func (r *stepRun) onThread(thread uintptr) error {
	if !r.hasThread {
		r.thread, r.hasThread = thread, true
	}
	if thread != r.thread {
		return errors.New("the run's leaves are evaluated on the thread of its first round: drive a run from one thread")
	}
	return nil
}

// next runs a round: it sets the priors of the batch fed last (if any),
// steps the slots and writes the leaves they ask for into dst; it returns
// their number, 0 once every slot has finished (or the run's error).
func (r *stepRun) next(dst leafArrays, thread uintptr) (int, error) {
	if err := dst.check(r.maxLeaves); err != nil {
		return 0, err
	}
	if r.over {
		return 0, r.err
	}
	if err := r.onThread(thread); err != nil {
		return 0, fmt.Errorf("next batch: %w", err)
	}
	if r.taken > 0 && !r.fed {
		return 0, fmt.Errorf("next batch: the batch of %d positions was not fed back (call feed, or abort)", r.taken)
	}
	r.dst = dst
	defer func() { r.dst, r.logits, r.values = leafArrays{}, nil, nil }()
	for {
		r.used.Store(0)
		units := r.shares(dst.capacity / r.maxLeaves)
		for i, w := range r.workers {
			w.post(jobStep, units[i+1])
		}
		r.drivers[0].step(units[0])
		for _, w := range r.workers {
			w.wait()
		}
		r.taken, r.fed = 0, false
		var feedErr error
		badRow, failed, live := 0, false, 0
		for _, d := range r.drivers {
			if d.feedErr != nil && (feedErr == nil || d.badRow < badRow) {
				feedErr, badRow = d.feedErr, d.badRow
			}
			failed = failed || d.failed
			live += d.live
		}
		switch {
		case feedErr != nil:
			r.stop(feedErr)
			return 0, feedErr
		case failed:
			r.stop(nil)
			return 0, r.err
		case live == 0:
			r.end(nil)
			return 0, nil
		}
		if n := int(r.used.Load()); n > 0 {
			r.taken = n
			return n, nil
		}
		// Every slot resumed finished without asking for leaves: on.
	}
}

// shares splits units (room for that many slots' leaves) among the
// drivers, in proportion to their live slots.
func (r *stepRun) shares(units int) []int {
	out := make([]int, len(r.drivers))
	live := 0
	for _, d := range r.drivers {
		live += d.live
	}
	if units >= live {
		for i, d := range r.drivers {
			out[i] = d.live
		}
		return out
	}
	given := 0
	for i, d := range r.drivers {
		out[i] = units * d.live / live
		given += out[i]
	}
	// What rounding leaves goes to the drivers with live slots beyond
	// their share, in turn, starting with another driver each round.
	r.rounds++
	for i := r.rounds % len(out); given < units; i = (i + 1) % len(out) {
		if out[i] < r.drivers[i].live {
			out[i]++
			given++
		}
	}
	return out
}

// feed takes the caller's logits and values for the batch of n positions
// next returned; the next round turns them into priors, and the caller
// keeps the arrays unchanged until then.
func (r *stepRun) feed(logits, values []float32, n int) error {
	if r.taken == 0 || r.fed {
		return errors.New("feed: no batch to feed (call next first)")
	}
	if n != r.taken {
		return fmt.Errorf("feed: %d positions for a batch of %d", n, r.taken)
	}
	if err := errors.Join(checkLen("logits", logits, n*env.NumActions), checkLen("values", values, n)); err != nil || logits == nil || values == nil {
		return fmt.Errorf("feed: want logits and values for %d positions: %w", n, err)
	}
	r.logits, r.values, r.fed = logits, values, true
	return nil
}

// round feeds the batch of n positions taken last (none when n is 0) and
// runs the next round into dst: ds_batch_round.
func (r *stepRun) round(logits, values []float32, n int, dst leafArrays, thread uintptr) (int, error) {
	if err := dst.check(r.maxLeaves); err != nil {
		return 0, err
	}
	if err := r.onThread(thread); err != nil {
		return 0, fmt.Errorf("round: %w", err)
	}
	if n > 0 {
		if err := r.feed(logits, values, n); err != nil {
			return 0, err
		}
	}
	return r.next(dst, thread)
}

// stop ends the run early: the slots that go on are aborted, and the run
// ends with err, or with the errors of the slots that failed.
func (r *stepRun) stop(err error) {
	for _, w := range r.workers {
		w.post(jobAbort, 0)
	}
	r.drivers[0].abort()
	for _, w := range r.workers {
		w.wait()
	}
	if err == nil {
		errs := make([]error, len(r.slots))
		for i, s := range r.slots {
			if !errors.Is(s.err, errAborted) {
				errs[i] = s.err
			}
		}
		err = firstErrors(errs)
	}
	r.end(err)
}

// end records the run's end and lets the workers go.
func (r *stepRun) end(err error) {
	for _, w := range r.workers {
		w.post(jobQuit, 0)
	}
	r.workers = nil
	r.over, r.err = true, err
}

// abort stops a run under way after the caller's evaluator failed. The
// caller's share of the searches can only be stopped from the thread of
// the run's rounds; from another (a handle closed elsewhere) they are
// left waiting, and the run ends all the same.
func (r *stepRun) abort(thread uintptr) {
	if r.over {
		return
	}
	if r.onThread(thread) != nil {
		r.drivers[0].slots = nil
	}
	r.stop(errAborted)
}

// underWay reports whether r (nil for none) is a run that has not ended.
func (r *stepRun) underWay() bool { return r != nil && !r.over }

// outcome reports why the results of r (nil for none) cannot be read: no
// run, a run under way or a failed one; nil once it has ended well.
func (r *stepRun) outcome() error {
	switch {
	case r == nil:
		return errors.New("nothing has run")
	case !r.over:
		return errors.New("the run is under way: evaluate its leaves to the end first")
	case r.err != nil:
		return fmt.Errorf("the last run failed: %w", r.err)
	}
	return nil
}
