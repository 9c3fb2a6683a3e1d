package mcts

import (
	"math"
)

// Timed search (Config.Time). The search checks the clock after every
// batch of leaves, so it overruns its time by at most one evaluator call,
// and it runs at least one batch, however slow the root's own evaluation
// (the first network call of a process, say) was.
// It ends early once the move is decided:
//
//   - when a root move wins at once or is proven won;
//   - with a PUCT root at temperature 0, also when the most visited move
//     cannot be overtaken by the second in the simulations left,
//     estimated from the rate of this search so far.
//
// Sequential halving needs its budget in advance, which a time limit does
// not give in simulations. The Gumbel root therefore shares out time
// instead: phase k of the halving ends at start + Time*(k+1)/phases (or
// when its share of the simulations, if Simulations is set, is spent), so
// every phase gets an equal slice of the time, as it gets an equal share
// of the simulations in an untimed search. The number of moves the
// halving starts with grows with the simulations the time is expected to
// afford, measured by the previous search's rate.

// simulationLimit returns the simulations a search may run at most: no
// limit for a timed search without one.
func (s *search) simulationLimit() int {
	if s.cfg.Simulations == 0 {
		return math.MaxInt
	}
	return s.cfg.Simulations
}

// expectedSimulations returns the simulations a search is expected to run:
// Simulations, or fewer if the time limit affords fewer at the previous
// search's rate; 0 when neither says.
func (s *search) expectedSimulations() int {
	n := s.cfg.Simulations
	if s.cfg.Time > 0 && s.rate > 0 {
		if est := int(s.rate * s.cfg.Time.Seconds()); n == 0 || est < n {
			n = est
		}
	}
	return n
}

// measureRate records the simulation rate of the search just run.
func (s *search) measureRate() {
	if elapsed := s.clock.Elapsed().Seconds(); s.ran > 0 && elapsed > 0 {
		s.rate = float64(s.ran) / elapsed
	}
}

// puctStop returns the stop test of a PUCT root's simulations: nil for an
// untimed search, which runs them all.
func (s *search) puctStop(temp float64) func() bool {
	if !s.clock.Timed() {
		return nil
	}
	limit := s.simulationLimit()
	return func() bool {
		return s.clock.Expired() || s.decided() || (temp == 0 && s.cannotBeOvertaken(limit))
	}
}

// decided reports whether the root's move is known whatever more search
// finds: a move wins at once or is proven won. (A position with a single
// legal move would be decided too, but Death Stacks seems to have none: a
// lone piece already has three.)
func (s *search) decided() bool { return s.winningChild() >= 0 }

// cannotBeOvertaken reports whether the most visited root move leads the
// second by more visits than the search has left: the simulations left
// under limit, or those the time left affords at the rate so far,
// whichever is fewer.
func (s *search) cannotBeOvertaken(limit int) bool {
	var first, second int32
	for _, ch := range s.rootChildren() {
		switch {
		case ch.N > first:
			first, second = ch.N, first
		case ch.N > second:
			second = ch.N
		}
	}
	now := s.clock.Now()
	elapsed := now.Sub(s.clock.Started()).Seconds()
	left := float64(limit - s.ran)
	if elapsed > 0 {
		left = min(left, float64(s.ran)/elapsed*s.clock.Deadline().Sub(now).Seconds())
	}
	return float64(first-second) > left
}
