// Package clock is the time limit of one search: when it started, when it
// must end and what a share of its time is. Its reading comes from a
// function, time.Now or a test's clock, so that tests drive timed
// searches without the wall clock.
package clock

import "time"

// Clock is the time limit of one search, read from now. The zero Clock
// has no limit.
type Clock struct {
	start, deadline time.Time
	limit           time.Duration
	now             func() time.Time
}

// Start starts a clock for a search of limit, read from now; 0 means no
// limit.
func Start(limit time.Duration, now func() time.Time) Clock {
	c := Clock{start: now(), limit: limit, now: now}
	if limit > 0 {
		c.deadline = c.start.Add(limit)
	}
	return c
}

// Timed reports whether the search has a time limit.
func (c Clock) Timed() bool { return c.limit > 0 }

// Expired reports whether a timed search is out of time.
func (c Clock) Expired() bool { return c.Timed() && !c.now().Before(c.deadline) }

// Now reads the clock.
func (c Clock) Now() time.Time { return c.now() }

// Started returns when the clock started.
func (c Clock) Started() time.Time { return c.start }

// Deadline returns when a timed search's time runs out.
func (c Clock) Deadline() time.Time { return c.deadline }

// Share returns the clock of the first fraction num/den of c's time: the
// zero Clock if c has no limit.
func (c Clock) Share(num, den int) Clock {
	if !c.Timed() {
		return Clock{}
	}
	limit := c.limit * time.Duration(num) / time.Duration(den)
	return Clock{start: c.start, deadline: c.start.Add(limit), limit: limit, now: c.now}
}

// Elapsed returns the time since the clock started.
func (c Clock) Elapsed() time.Duration { return c.now().Sub(c.start) }

// PhaseEnd returns when phase k of n of a timed search ends: the phases
// share the time equally, the last ending at the deadline.
func (c Clock) PhaseEnd(k, n int) time.Time {
	if k >= n-1 {
		return c.deadline
	}
	return c.start.Add(c.limit * time.Duration(k+1) / time.Duration(n))
}
