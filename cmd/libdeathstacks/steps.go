package main

import (
	"errors"
	"fmt"

	"github.com/deathstacks/deathstacks/mcts/stepped"
)

// Searches guided by the caller's evaluator (a Python function), stepped
// by the caller's own calls: a run (the searches of search.go, the
// self-play games of selfplay.go) is a stepped.Run, and the caller's
// call (ds_batch_round, or ds_batch_next after ds_batch_feed) is one of
// its rounds. The library adds the thread: a call from C is locked to its
// thread, and a coroutine created on a locked thread can only be resumed
// on that thread, so the run's share of the caller's thread belongs to the
// thread of its first round, and a round from another thread is refused
// (Python drives a run in one call, on one thread).

// stepRun is a run of searches stepped by the caller's rounds, on the
// thread of its first.
type stepRun struct {
	*stepped.Run
	// thread is the caller's thread (see callerThread), set by the first
	// round.
	thread    uintptr
	hasThread bool
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

// leafArrays are the caller's arrays for a batch: observations and legal
// masks, room for the same number of positions.
type leafArrays struct {
	obs  []float32
	mask []bool
}

// next runs a round: it sets the priors of the batch fed last (if any),
// steps the searches and writes the leaves they ask for into dst; it
// returns their number, 0 once every search has finished (or the run's
// error).
func (r *stepRun) next(dst leafArrays, thread uintptr) (int, error) {
	if !r.Over() {
		if err := r.onThread(thread); err != nil {
			return 0, fmt.Errorf("next batch: %w", err)
		}
	}
	return r.Next(dst.obs, dst.mask)
}

// feed takes the caller's logits and values for the batch of n positions
// next returned; the next round turns them into priors, and the caller
// keeps the arrays unchanged until then.
func (r *stepRun) feed(logits, values []float32, n int) error {
	if logits == nil || values == nil {
		return fmt.Errorf("feed: want logits and values for %d positions", n)
	}
	return r.Feed(logits, values)
}

// round feeds the batch of n positions taken last (none when n is 0) and
// runs the next round into dst: ds_batch_round.
func (r *stepRun) round(logits, values []float32, n int, dst leafArrays, thread uintptr) (int, error) {
	if err := r.onThread(thread); err != nil {
		return 0, fmt.Errorf("round: %w", err)
	}
	if n > 0 && (logits == nil || values == nil) {
		return 0, fmt.Errorf("feed: want logits and values for %d positions", n)
	}
	return r.Round(logits, values, dst.obs, dst.mask)
}

// abort stops a run under way after the caller's evaluator failed. The
// caller's share of the searches can only be stopped from the thread of
// the run's rounds; from another (a handle closed elsewhere) they are
// left waiting, and the run ends all the same.
func (r *stepRun) abort(thread uintptr) {
	if r.Over() {
		return
	}
	if r.onThread(thread) != nil {
		r.Abandon()
		return
	}
	r.Abort()
}
