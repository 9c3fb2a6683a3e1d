// Package parallel runs numbered jobs a few at a time, each on a
// goroutine: the runner of the arena's games (package train/arena).
// Self-play's games run as coroutines of mcts/stepped.Drive instead.
package parallel

import (
	"context"
	"sync"
)

// Run calls job for the jobs 0 to n-1, starting them in that order, at
// most p at once (p < 1 counts as 1), and hands each result with its
// job's number to done as the jobs finish: one call at a time, on the
// caller's goroutine, so done needs no lock of its own. n may be huge (a
// run until ctx ends): jobs are numbered as they start.
//
// The first error of a job or of done, or the end of ctx, stops the
// run: no job starts after it, the jobs under way see their context
// end, and once they have returned Run returns that error (for the end
// of ctx, its cause: ctx.Err() unless a cause was given). A job that still succeeds after the stop has its result
// handed to done all the same, whose errors are then dropped: a caller
// that keeps every finished result (a journal of games) loses none.
// Run returns nil when every job succeeded, even if ctx ended after the
// last one.
func Run[T any](ctx context.Context, n, p int, job func(ctx context.Context, i int) (T, error), done func(i int, v T) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	type result struct {
		i   int
		v   T
		err error
	}
	next := make(chan int)
	results := make(chan result)
	var wg sync.WaitGroup
	for range min(max(p, 1), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				v, err := job(ctx, i)
				results <- result{i, v, err}
			}
		}()
	}
	go func() {
		defer close(next)
		for i := 0; i < n && ctx.Err() == nil; i++ {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	var first error
	finished := 0
	for r := range results {
		err := r.err
		if err == nil {
			finished++
			if err = done(r.i, r.v); first != nil {
				err = nil
			}
		}
		if err != nil && first == nil {
			first = err
			cancel(err)
		}
	}
	if first == nil && finished < n {
		first = context.Cause(ctx) // ctx ended between jobs
	}
	return first
}
