package mcts

import (
	"math/bits"

	"github.com/deathstacks/deathstacks/mcts/internal/gumbel"
)

// gumbelSearch runs the simulations of one search by sequential halving
// over the considered root moves (see package mcts/internal/gumbel) and
// returns the arena index of the chosen root child. The noise is scaled
// by temp; with temp 0 the search and the choice are deterministic.
func (s *search) gumbelSearch(temp float64) (int32, error) {
	s.gumbel.Start(s.rootChildren(), s.rng, temp, s.consideredMoves())

	// Each phase gives every considered move the same number of
	// simulations, about Simulations / (phases * considered), and then
	// keeps the better half; the last phase, or the last two moves, take
	// whatever is left. A timed search gives each phase an equal slice of
	// the time as well (see timed.go).
	phases := max(1, bits.Len(uint(s.gumbel.Considered()-1)))
	remaining := s.simulationLimit()
	s.gumbel.Forced = true
	defer func() { s.gumbel.Forced = false }()
	// A timed search runs at least one batch, however slow the root's
	// own evaluation was.
	for phase := 0; remaining > 0 && (phase == 0 || !s.clock.Expired()); phase++ {
		n := s.gumbel.Considered()
		sims := remaining
		if n > 2 && phase < phases-1 && s.cfg.Simulations > 0 {
			sims = min(remaining, n*max(1, s.cfg.Simulations/(phases*n)))
		}
		s.gumbel.NewPhase()
		before := s.ran
		if err := s.simulate(sims, s.gumbelStop(phase, phases)); err != nil {
			return -1, err
		}
		remaining -= s.ran - before
		if s.clock.Timed() && s.decided() {
			break
		}
		if remaining > 0 && n > 1 && phase < phases-1 {
			s.gumbel.Rank(s.nodes.At(0), s.rootChildren(), s.sigma())
			s.gumbel.Halve()
		}
	}
	s.gumbel.Rank(s.nodes.At(0), s.rootChildren(), s.sigma())
	return s.nodes.At(0).First + s.gumbel.Best(), nil
}

// sigma is what the Gumbel root's sigma(completed Q) takes from the
// search: its settings and the root side's draw value.
func (s *search) sigma() gumbel.Sigma {
	return gumbel.Sigma{CVisit: s.cfg.GumbelCVisit, CScale: s.cfg.GumbelCScale, Draw: s.draw}
}

// simsPerConsidered widens a large search: it considers at least one move
// per simsPerConsidered simulations, so that an analysis with thousands of
// simulations does not stay inside the prior's top GumbelConsidered moves
// without noise (self-play and evaluation budgets of 256 simulations or
// fewer keep GumbelConsidered).
const simsPerConsidered = 16

// consideredMoves returns how many root moves the halving starts with
// (before capping by the legal moves).
func (s *search) consideredMoves() int {
	return max(s.cfg.GumbelConsidered, s.expectedSimulations()/simsPerConsidered)
}

// gumbelStop returns the stop test of phase k of n of a Gumbel root: nil
// for an untimed search.
func (s *search) gumbelStop(k, n int) func() bool {
	if !s.clock.Timed() {
		return nil
	}
	end := s.clock.PhaseEnd(k, n)
	return func() bool { return !s.clock.Now().Before(end) || s.decided() }
}

// unassign takes back the phase simulation of a descent that collided with
// a leaf already in the batch.
func (s *search) unassign(path []int32) {
	if s.gumbel.Forced && len(path) > 1 {
		s.gumbel.Unassign(path[1] - s.nodes.At(0).First)
	}
}
