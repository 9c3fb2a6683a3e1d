// Package testctx gives tests time without wall-clock budgets: a context
// that lasts as long as the test may, and a wait bounded by it. A loaded
// machine makes a test slower, never failed; a test that hangs still fails,
// with its name and what it waited for, before go test's own timeout kills
// the whole binary.
package testctx

import (
	"context"
	"testing"
	"time"
)

// margin is how long before the test binary's deadline a test's context
// ends: time enough to report the failure and run the cleanups.
const margin = 30 * time.Second

// Context is the context of a whole test: it ends when the test does, or
// 30 seconds before the test binary's deadline (go test -timeout).
func Context(t testing.TB) context.Context {
	ctx := t.Context()
	if dt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if d, ok := dt.Deadline(); ok {
			c, cancel := context.WithDeadline(ctx, d.Add(-margin))
			t.Cleanup(cancel)
			return c
		}
	}
	return ctx
}

// WaitUntil polls cond until it holds (every millisecond at first, then
// less often, up to every 20 ms, for conditions that read files), or fails
// the test, naming what it waited for, when its Context ends.
func WaitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	ctx := Context(t)
	for pause := time.Millisecond; !cond(); pause = min(2*pause, 20*time.Millisecond) {
		select {
		case <-ctx.Done():
			t.Fatalf("still waiting for %s when the test's time ran out", what)
		case <-time.After(pause):
		}
	}
}
