// Package stepped runs many searches as coroutines, their leaves batched
// across them: stepped by a caller that owns the evaluation (a Python
// network, a batch on another machine; see [Run]), or driven by Go
// evaluators, one a core, as self-play's games are ([Drive]).
package stepped

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
)

// Run runs searches guided by one evaluator outside them, stepped by
// the caller: the search of many positions at once, or many self-play
// games, with a network the caller runs on batches of its own making (a
// Python network, a batch on another machine). The caller owns the
// evaluation and its buffers, as with mctx's batched search or lc0's
// computation object; a Run never calls into the caller.
//
// The searches belong to works, one a slot: a work searches with the
// evaluator it is given (one search, or game after game), and each slot
// runs as a coroutine. When a search asks for an evaluation, its leaves'
// observations and legal masks go into the caller's buffers and the slot
// is suspended. A round is the caller's call of [Run.Next] (after
// [Run.Feed]) or [Run.Round]: it turns the logits and values of the
// batch evaluated last into the priors and values of those leaves, resumes
// the slots until each asks for leaves again or ends, and returns the new
// batch's size: one batch a round across all the searches.
//
// The calling goroutine steps a share of the slots itself and a worker
// goroutine for each further processor (GOMAXPROCS) steps the rest, each
// share in rows of its own of the caller's buffers, so a round runs on
// every core. A worker waits for the next round spinning a little before
// it sleeps, and so does the caller for the workers' shares: on a thread
// locked by a call from C, every wait hands the processor to another
// thread and back, which costs tens of microseconds a round. Make every
// call from one goroutine: a coroutine created by a goroutine locked to
// its thread can only be resumed on that thread.
//
// An open run (NewOpen) takes its works as they come, from any
// goroutine (Add): the searches of games played on goroutines of their
// own, each handed to the run when its player is to move. A work added
// starts at the next round, or joins the round under way while the
// caller's buffers have room; a slot whose work has returned is
// forgotten, and the run goes on, idle between works, until it is
// aborted. The caller's goroutine steps all its slots, with no worker:
// the cores are left to the games, and no worker spins against them.
//
// A leaf's value must lie in [-1, 1], the range of the network's tanh
// value head and what every [mcts.Evaluator] promises: the one rule
// ([mcts.ValidValue]), here as in the search itself, so a value out of
// range (or NaN) is the caller's error at once, never clamped.
type Run struct {
	maxLeaves int
	priors    PriorsFunc
	slots     []*stepSlot
	// drivers step the slots: drivers[0] on the caller's goroutine, the
	// rest on workers; slot i of New belongs to driver i %
	// len(drivers). An open run has drivers[0] only.
	drivers []*stepDriver
	workers []*stepWorker
	// open says works come with Add; added holds those not yet started.
	// mu guards added and the writes of over, which Add reads.
	open  bool
	mu    sync.Mutex
	added []Work
	// taken is the size of the batch the caller is evaluating, fed says
	// it has been fed back with logits and values.
	taken          int
	fed            bool
	logits, values []float32
	// obs and mask are the caller's buffers during a round; used counts
	// the rows written; rounds counts the rounds.
	obs    []float32
	mask   []bool
	used   atomic.Int64
	rounds int
	// over says the run has ended, err with its outcome.
	over bool
	err  error
}

// Work is the searching of one slot of a [Run]: its searches evaluate
// their leaves with eval, which suspends the slot until the caller's next
// round. A work that returns an error ends the run.
type Work func(eval mcts.Evaluator) error

// PriorsFunc writes the priors of a leaf's legal actions into dst (compact
// over legal) from the caller's row of env.NumActions logits, or says why
// it cannot: model.LegalSoftmax, for the priors the network's own
// evaluator gives.
type PriorsFunc func(dst, logits []float32, legal []env.Action) error

// ErrAborted is the error the searches of an aborted run get from their
// evaluator.
var ErrAborted = errors.New("the evaluator failed: the searches were stopped")

// New returns a run of one slot per work, whose searches ask for
// at most maxLeaves leaves at once (Config.BatchSize) and whose priors are
// made by priors. The run starts with the caller's first round.
func New(works []Work, maxLeaves int, priors PriorsFunc) *Run {
	r := newRun(max(1, min(runtime.GOMAXPROCS(0), len(works))), maxLeaves, priors)
	for i, w := range works {
		r.drivers[i%len(r.drivers)].add(r.newSlot(w))
	}
	for _, d := range r.drivers[1:] {
		w := newStepWorker(d)
		r.workers = append(r.workers, w)
		go w.serve()
	}
	if len(works) == 0 {
		r.over = true
	}
	return r
}

// NewOpen returns an open run, with no works yet: Add gives it
// its works. Its searches ask for at most maxLeaves leaves at once and
// their priors are made by priors, as with New; a round returns 0
// when no search asks for leaves, and the run goes on until it is
// aborted (Abort, or Abandon).
func NewOpen(maxLeaves int, priors PriorsFunc) *Run {
	r := newRun(1, maxLeaves, priors)
	r.open = true
	return r
}

func newRun(nDrivers, maxLeaves int, priors PriorsFunc) *Run {
	r := &Run{maxLeaves: maxLeaves, priors: priors, drivers: make([]*stepDriver, nDrivers)}
	for i := range r.drivers {
		r.drivers[i] = &stepDriver{}
	}
	return r
}

// newSlot returns a new slot of the run for w.
func (r *Run) newSlot(w Work) *stepSlot {
	s := &stepSlot{work: w, maxLeaves: r.maxLeaves, batch: r, row: -1}
	r.slots = append(r.slots, s)
	return s
}

// Add gives an open run a work, from any goroutine: it starts at the
// next round. It reports false, adding nothing, when the run is not open
// or has ended; works added and not started when the run ends are
// dropped.
func (r *Run) Add(w Work) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.open || r.over {
		return false
	}
	r.added = append(r.added, w)
	return true
}

// Ready reports whether a round now would step searches: the run has not
// ended and the batch taken last has been fed, or none is taken and the
// run is not open or has works added since its last round.
func (r *Run) Ready() bool {
	switch {
	case r.over:
		return false
	case r.taken > 0:
		return r.fed
	case !r.open:
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.added) > 0
}

// admit gives an open run's driver a slot for each work added since the
// last round (at most limit of them, limit < 0 for all), and returns the
// new slots.
func (r *Run) admit(limit int) []*stepSlot {
	r.mu.Lock()
	n := len(r.added)
	if limit >= 0 {
		n = min(n, limit)
	}
	added := r.added[:n]
	r.added = r.added[n:]
	r.mu.Unlock()
	slots := make([]*stepSlot, n)
	for i, w := range added {
		slots[i] = r.newSlot(w)
		r.drivers[0].add(slots[i])
	}
	return slots
}

// forgetDone forgets the slots of an open run whose works have returned.
func (r *Run) forgetDone() {
	r.slots = slices.DeleteFunc(r.slots, func(s *stepSlot) bool { return s.done })
	r.drivers[0].forgetDone()
}

// latecomers lets the works added to an open run during its round join
// it while the caller's buffers (room for capacity positions) have room
// for their leaves. When a work has returned in the round (decided a
// move), the caller first yields the processor once: the game of that
// move then hands the run its next search at once, most often, and the
// search joins this batch rather than making a batch of its own later.
func (r *Run) latecomers(capacity int, returned bool) {
	if returned {
		runtime.Gosched()
	}
	for {
		room := (capacity - int(r.used.Load())) / r.maxLeaves
		slots := r.admit(room)
		if len(slots) == 0 {
			return
		}
		for _, s := range slots {
			r.drivers[0].resume(s)
		}
	}
}

// MaxLeaves is the most leaves one search asks for at once: the caller's
// buffers must have room for that many.
func (r *Run) MaxLeaves() int { return r.maxLeaves }

// Over reports whether the run has ended: every work has returned, or the
// run failed or was aborted.
func (r *Run) Over() bool { return r.over }

// Err reports why the results of the works cannot be read: the run is
// under way, or it failed (with the error of the works that failed, or
// the caller's first bad result); nil once it has ended well.
func (r *Run) Err() error {
	switch {
	case !r.over:
		return errors.New("the run is under way: evaluate its leaves to the end first")
	case r.err != nil:
		return fmt.Errorf("the last run failed: %w", r.err)
	}
	return nil
}

// Next runs a round: it sets the priors and values of the batch fed last
// (if any), steps the searches and writes the observations and legal
// masks of the leaves they ask for into obs and mask, room for capacity
// positions (capacity*env.ObservationSize and capacity*env.NumActions
// entries, capacity at least MaxLeaves). It returns their number, and 0
// once every work has returned (or the run's error); in an open run, 0
// when no search asks for leaves. The caller then evaluates the leaves and
// feeds their logits and values back with Feed.
func (r *Run) Next(obs []float32, mask []bool) (int, error) {
	if err := r.checkBuffers(obs, mask); err != nil {
		return 0, err
	}
	if r.over {
		return 0, r.err
	}
	if r.taken > 0 && !r.fed {
		return 0, fmt.Errorf("next batch: the batch of %d positions was not fed back (call feed, or abort)", r.taken)
	}
	r.obs, r.mask = obs, mask
	defer func() { r.obs, r.mask, r.logits, r.values = nil, nil, nil, nil }()
	for {
		if r.open {
			r.forgetDone()
			r.admit(-1)
		}
		live := r.live()
		r.used.Store(0)
		units := r.shares(len(mask) / env.NumActions / r.maxLeaves)
		for i, w := range r.workers {
			w.post(jobStep, units[i+1])
		}
		r.drivers[0].step(units[0])
		for _, w := range r.workers {
			w.wait()
		}
		r.taken, r.fed = 0, false
		done, err := r.settle()
		if !done && r.open {
			r.latecomers(len(mask)/env.NumActions, r.live() < live)
			done, err = r.settle()
		}
		if done {
			return 0, err
		}
		if n := int(r.used.Load()); n > 0 {
			r.taken = n
			return n, nil
		}
		if r.open && r.live() == 0 {
			return 0, nil
		}
		// Every slot resumed finished without asking for leaves: on.
	}
}

// settle ends the run after a round when a fed row was bad, a work failed
// or every work has returned, and reports whether it did, with the run's
// error.
func (r *Run) settle() (bool, error) {
	var feedErr error
	badRow, failed := 0, false
	for _, d := range r.drivers {
		if d.feedErr != nil && (feedErr == nil || d.badRow < badRow) {
			feedErr, badRow = d.feedErr, d.badRow
		}
		failed = failed || d.failed
	}
	switch {
	case feedErr != nil:
		r.stop(feedErr)
		return true, feedErr
	case failed:
		r.stop(nil)
		return true, r.err
	case r.live() == 0 && !r.open:
		r.end(nil)
		return true, nil
	}
	return false, nil
}

// live counts the slots whose works go on.
func (r *Run) live() int {
	n := 0
	for _, d := range r.drivers {
		n += d.live
	}
	return n
}

// checkBuffers checks the caller's buffers for a batch.
func (r *Run) checkBuffers(obs []float32, mask []bool) error {
	capacity := len(mask) / env.NumActions
	if len(mask) != capacity*env.NumActions || len(obs) != capacity*env.ObservationSize {
		return fmt.Errorf("next batch: %d observation values and %d mask entries: want %d and %d a position", len(obs), len(mask), env.ObservationSize, env.NumActions)
	}
	if capacity < r.maxLeaves {
		return fmt.Errorf("next batch: arrays for %d positions: want at least batch_size, %d, as one search asks for that many leaves at once", capacity, r.maxLeaves)
	}
	return nil
}

// Feed takes the caller's logits (env.NumActions a position, in action
// order) and values of the batch Next returned last; the next round turns
// them into the leaves' priors and values, and the caller keeps the
// buffers unchanged until then.
func (r *Run) Feed(logits, values []float32) error {
	if r.taken == 0 || r.fed {
		return errors.New("feed: no batch to feed (call next first)")
	}
	if n := len(values); n != r.taken {
		return fmt.Errorf("feed: %d positions for a batch of %d", n, r.taken)
	}
	if len(logits) != r.taken*env.NumActions {
		return fmt.Errorf("feed: %d logits for a batch of %d positions: want %d", len(logits), r.taken, r.taken*env.NumActions)
	}
	r.logits, r.values, r.fed = logits, values, true
	return nil
}

// Round feeds the logits and values of the batch taken last (none before
// the first batch) and runs the next round into obs and mask: Feed and
// Next in one call.
func (r *Run) Round(logits, values, obs []float32, mask []bool) (int, error) {
	if err := r.checkBuffers(obs, mask); err != nil {
		return 0, err
	}
	if len(values) > 0 {
		if err := r.Feed(logits, values); err != nil {
			return 0, err
		}
	}
	return r.Next(obs, mask)
}

// Abort stops a run under way (the caller's evaluation failed): the
// searches get ErrAborted from their evaluator, and the run ends with
// ErrAborted.
func (r *Run) Abort() {
	if !r.over {
		r.stop(ErrAborted)
	}
}

// Abandon stops a run under way as Abort does, from a goroutine that
// cannot resume the caller's share of the searches (one on another
// thread than the rounds', the caller's being locked to its own): that
// share is left suspended, and the run ends all the same.
func (r *Run) Abandon() {
	if !r.over {
		r.drivers[0].slots = nil
		r.stop(ErrAborted)
	}
}

// shares splits units (room for that many slots' leaves) among the
// drivers, in proportion to their live slots.
func (r *Run) shares(units int) []int {
	out := make([]int, len(r.drivers))
	live := r.live()
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

// stop ends the run early: the slots that go on are aborted, and the run
// ends with err, or with the errors of the slots that failed.
func (r *Run) stop(err error) {
	for _, w := range r.workers {
		w.post(jobAbort, 0)
	}
	r.drivers[0].abort()
	for _, w := range r.workers {
		w.wait()
	}
	if err == nil {
		err = slotErrors(r.slots)
	}
	r.end(err)
}

// slotErrors joins the errors of the first three slots that failed other
// than by an abort, and counts the rest.
func slotErrors(slots []*stepSlot) error {
	var errs []error
	more := 0
	for _, s := range slots {
		if s.err == nil || errors.Is(s.err, ErrAborted) {
			continue
		}
		if len(errs) == 3 {
			more++
			continue
		}
		errs = append(errs, s.err)
	}
	if more > 0 {
		errs = append(errs, fmt.Errorf("and %d more", more))
	}
	return errors.Join(errs...)
}

// end records the run's end and lets the workers go.
func (r *Run) end(err error) {
	for _, w := range r.workers {
		w.post(jobQuit, 0)
	}
	r.workers = nil
	r.mu.Lock()
	r.over, r.err, r.added = true, err, nil
	r.mu.Unlock()
}

// stepSlot is one coroutine of a run.
type stepSlot struct {
	work      Work
	maxLeaves int
	next      func() (struct{}, bool)
	stop      func()
	yield     func(struct{}) bool
	// batch is where its leaves go: the caller's buffers of a Run, or
	// the batch of the lane that resumed it (Drive).
	batch leafBatch
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

// leafBatch is a round's batch of leaves, as the slots see it.
type leafBatch interface {
	// add writes the observations and legal actions of k leaves and
	// returns the row of the first.
	add(obs []float32, legal [][]env.Action, priors [][]float32) int
	// set gives the leaves of s, evaluated, their priors and values, or
	// returns the first bad row and its error.
	set(s *stepSlot) (int, error)
}

// Evaluate implements [mcts.Evaluator] for the slot's searches: it writes the
// leaves into the round's batch and waits for the next round, which
// sets their priors and values.
func (s *stepSlot) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	if k := len(values); k > s.maxLeaves {
		return fmt.Errorf("%d leaves at once: want at most %d", k, s.maxLeaves)
	}
	s.row = s.batch.add(obs, legal, priors)
	s.legal, s.priors, s.values = legal, priors, values
	if !s.yield(struct{}{}) {
		return ErrAborted
	}
	return nil
}

// resume runs the slot until its search asks for leaves, or its work
// ends. Its coroutine is created by its first resume.
func (s *stepSlot) resume() {
	if s.next == nil {
		s.next, s.stop = iter.Pull(func(yield func(struct{}) bool) {
			s.yield = yield
			s.err = recovered(func() error { return s.work(s) })
		})
	}
	if _, ok := s.next(); !ok {
		s.done = true
	}
}

// abort stops the slot's work: its search's evaluation fails.
func (s *stepSlot) abort() {
	if s.stop != nil {
		s.stop()
	}
	s.done = true
}

// setFed gives the slot's leaves their priors and values from the batch
// evaluated, or returns the first bad row and its error.
func (s *stepSlot) setFed() (int, error) {
	if row, err := s.batch.set(s); err != nil {
		return row, err
	}
	s.row, s.legal, s.priors, s.values = -1, nil, nil, nil
	return 0, nil
}

// add implements leafBatch for the caller's buffers: the observations and
// legal masks go into them.
func (r *Run) add(obs []float32, legal [][]env.Action, _ [][]float32) int {
	k := len(legal)
	row := int(r.used.Add(int64(k))) - k
	copy(r.obs[row*env.ObservationSize:], obs)
	m := r.mask[row*env.NumActions : (row+k)*env.NumActions]
	clear(m)
	for j, acts := range legal {
		for _, a := range acts {
			m[j*env.NumActions+int(a)] = true
		}
	}
	return row
}

// set implements leafBatch for the caller's buffers: the caller's logits
// become priors through the run's PriorsFunc.
func (r *Run) set(s *stepSlot) (int, error) {
	for j := range s.values {
		row := s.row + j
		if err := r.priors.SetLeaf(s.priors[j], &s.values[j], s.legal[j], r.logits[row*env.NumActions:(row+1)*env.NumActions], r.values[row], row); err != nil {
			return row, err
		}
	}
	return 0, nil
}

// SetLeaf sets a leaf's priors over its legal actions and its value from
// its row of a caller's batch, row number row (named in errors): logits,
// env.NumActions of them in action order, through f, and v, which must
// obey the one rule for leaf values (see [Run]).
func (f PriorsFunc) SetLeaf(priors []float32, value *float32, legal []env.Action, logits []float32, v float32, row int) error {
	if err := checkValue(v, row); err != nil {
		return err
	}
	*value = v
	if err := f(priors, logits, legal); err != nil {
		for _, a := range legal {
			if l := float64(logits[a]); math.IsNaN(l) || math.IsInf(l, 0) {
				return fmt.Errorf("the evaluator returned %v for the logit of legal action %d of position %d of the batch: the logits of legal actions must be finite", l, a, row)
			}
		}
		return fmt.Errorf("the evaluator's logits for position %d of the batch: %w", row, err)
	}
	return nil
}

// checkValue applies the one rule for leaf values (see [Run]) to the
// value of a batch's row.
func checkValue(v float32, row int) error {
	if !mcts.ValidValue(v) {
		return fmt.Errorf("the evaluator returned %v for the value of position %d of the batch: values must be finite, in [-1, 1]", v, row)
	}
	return nil
}

// recovered runs f, a panic in it coming back as its error: a panic on a
// worker's goroutine would end the caller's process.
func recovered(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error (please report): %v\n%s", p, debug.Stack())
		}
	}()
	return f()
}

// stepDriver steps a share of a run's slots, on one goroutine.
type stepDriver struct {
	slots []*stepSlot
	// live counts the slots whose work goes on; from is where the next
	// round starts resuming, so that no slot waits behind another when
	// the caller's buffers do not hold every slot's leaves.
	live, from int
	// The outcome of its last step: the first bad row of the batch fed
	// (badRow, feedErr), and whether a slot failed.
	badRow  int
	feedErr error
	failed  bool
}

// add gives the driver a new slot.
func (d *stepDriver) add(s *stepSlot) {
	d.slots = append(d.slots, s)
	d.live++
}

// forgetDone drops the slots whose works have returned, keeping the
// place where the next round starts.
func (d *stepDriver) forgetDone() {
	kept, from := d.slots[:0], -1
	for i, s := range d.slots {
		if i == d.from {
			from = len(kept)
		}
		if !s.done {
			kept = append(kept, s)
		}
	}
	if from < 0 {
		from = len(kept)
	}
	clear(d.slots[len(kept):])
	d.slots, d.from = kept, from
}

// step feeds the driver's slots whose leaves were in the batch evaluated
// last and resumes up to units of the live ones, each sure of maxLeaves
// rows of the caller's buffers.
func (d *stepDriver) step(units int) {
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
		d.resume(s)
	}
}

// resume resumes one of the driver's slots, counting it out when its work
// returns.
func (d *stepDriver) resume(s *stepSlot) {
	s.resume()
	if s.done {
		d.live--
		d.failed = d.failed || s.err != nil
	}
}

// do does a job of a worker's.
func (d *stepDriver) do(job, units int) {
	switch job {
	case jobStep:
		d.step(units)
	case jobAbort:
		d.abort()
	}
}

// abort stops the driver's slots that go on.
func (d *stepDriver) abort() {
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
// wants the cores: a worker spins long (quickSpins, about a tenth of a
// millisecond) only while the caller comes back sooner than quickReturn,
// so that a cheap evaluator's rounds do not wait for a sleeping worker to
// wake, and else a few microseconds (workerSpins), so that no spin takes
// the cores from an evaluator that runs its own threads (PyTorch's).
const (
	workerSpins = 1 << 12
	quickSpins  = 1 << 16
	callerSpins = 1 << 20
	quickReturn = 200 * time.Microsecond
)

// epoch is the origin of the workers' clock readings, for a monotonic
// time in an atomic integer.
var epoch = time.Now()

// stepWorker steps a driver's share of the slots on a goroutine of its
// own.
type stepWorker struct {
	d *stepDriver
	// posted counts the rounds the caller posted, job and units being the
	// last one's; finished the rounds done.
	posted, finished atomic.Int64
	job, units       int
	// freeAt is when the worker finished its last round (since epoch);
	// quick says the caller came back within quickReturn of it last
	// time.
	freeAt atomic.Int64
	quick  atomic.Bool
	// wake and done carry a token when a round is posted and done, for a
	// side that stopped spinning.
	wake, done chan struct{}
}

func newStepWorker(d *stepDriver) *stepWorker {
	return &stepWorker{d: d, wake: make(chan struct{}, 1), done: make(chan struct{}, 1)}
}

// post hands the worker its next round, noting whether the caller came
// back quickly after the last one.
func (w *stepWorker) post(job, units int) {
	w.quick.Store(time.Since(epoch)-time.Duration(w.freeAt.Load()) < quickReturn)
	w.job, w.units = job, units
	w.posted.Add(1)
	signal(w.wake)
}

// serve does the rounds the caller posts until told to quit.
func (w *stepWorker) serve() {
	for round := int64(1); ; round++ {
		spins := workerSpins
		if w.quick.Load() {
			spins = quickSpins
		}
		for i := 0; w.posted.Load() < round; i++ {
			if i >= spins {
				<-w.wake
			} else if i%1024 == 1023 {
				runtime.Gosched()
			}
		}
		job := w.job
		if err := recovered(func() error { w.d.do(job, w.units); return nil }); err != nil {
			w.d.feedErr, w.d.badRow = err, -1
		}
		w.freeAt.Store(int64(time.Since(epoch)))
		w.finished.Store(round)
		signal(w.done)
		if job == jobQuit {
			return
		}
	}
}

// wait waits for the worker to finish the round posted last.
func (w *stepWorker) wait() {
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
