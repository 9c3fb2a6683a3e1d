package mcts

import (
	"cmp"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/internal/arena"
)

// The Gumbel root (Config.Gumbel), after Danihelka et al., "Policy
// improvement by planning with Gumbel" (ICLR 2022). PUCT's visit shares
// are a poor policy target when a search has fewer simulations than the
// root has moves: most moves get no visit at all and the shares mostly
// echo the prior, so a prior that overlooks a capture never learns it. The
// Gumbel root instead samples GumbelConsidered moves without replacement
// (the Gumbel-top-k trick on the prior's logits), gives them the
// simulations by sequential halving, and trains towards
// softmax(logit + sigma(completed Q)), which moves probability towards the
// moves the search found good and keeps the prior for the others. Below
// the root the search stays PUCT.

// gumbelRoot is the state of a Gumbel root during one search, reused
// between searches to avoid garbage. gumbelSearch sets it up and narrows
// the considered moves phase by phase; descend reads forced, and
// selectConsidered, unassign and rankConsidered the rest. base, sigma and
// assigned are indexed by the root's children.
type gumbelRoot struct {
	// base is each root child's noise + logit, the fixed part of its
	// rank; sigma is sigma(completed Q) scratch (see rootSigma).
	base, sigma []float64
	// considered holds the children still in the halving (offsets among
	// the root's children), best first after each ranking; assigned
	// counts the simulations each child got in the current phase.
	considered, assigned []int32
	// forced says descents start at a considered child (see
	// selectConsidered) instead of by PUCT.
	forced bool
}

// gumbelSearch runs the simulations of one search by sequential halving
// over the considered root moves and returns the arena index of the chosen
// root child. The noise is scaled by temp; with temp 0 the search and the
// choice are deterministic.
func (s *search) gumbelSearch(temp float64) (int32, error) {
	children := s.rootChildren()
	s.gumbel.base = s.gumbel.base[:0]
	s.gumbel.considered = s.gumbel.considered[:0]
	for i := range children {
		g := 0.0
		if temp > 0 {
			g = temp * gumbelNoise(s.rng)
		}
		s.gumbel.base = append(s.gumbel.base, g+logit(children[i].Prior))
		s.gumbel.considered = append(s.gumbel.considered, int32(i))
	}
	slices.SortStableFunc(s.gumbel.considered, func(a, b int32) int {
		return cmp.Compare(s.gumbel.base[b], s.gumbel.base[a])
	})
	s.gumbel.considered = s.gumbel.considered[:min(s.consideredMoves(), len(children))]
	s.gumbel.assigned = slices.Grow(s.gumbel.assigned[:0], len(children))[:len(children)]

	// Each phase gives every considered move the same number of
	// simulations, about Simulations / (phases * considered), and then
	// keeps the better half; the last phase, or the last two moves, take
	// whatever is left. A timed search gives each phase an equal slice of
	// the time as well (see timed.go).
	phases := max(1, bits.Len(uint(len(s.gumbel.considered)-1)))
	remaining := s.simulationLimit()
	s.gumbel.forced = true
	defer func() { s.gumbel.forced = false }()
	// A timed search runs at least one batch, however slow the root's
	// own evaluation was.
	for phase := 0; remaining > 0 && (phase == 0 || !s.clock.Expired()); phase++ {
		n := len(s.gumbel.considered)
		sims := remaining
		if n > 2 && phase < phases-1 && s.cfg.Simulations > 0 {
			sims = min(remaining, n*max(1, s.cfg.Simulations/(phases*n)))
		}
		clear(s.gumbel.assigned)
		before := s.ran
		if err := s.simulate(sims, s.gumbelStop(phase, phases)); err != nil {
			return -1, err
		}
		remaining -= s.ran - before
		if s.clock.Timed() && s.decided() {
			break
		}
		if remaining > 0 && n > 1 && phase < phases-1 {
			s.rankConsidered()
			s.gumbel.considered = s.gumbel.considered[:(n+1)/2]
		}
	}
	s.rankConsidered()
	return s.nodes.At(0).First + s.gumbel.considered[0], nil
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

// selectConsidered returns the considered root child that has had the
// fewest simulations of this phase (the better-ranked one on ties), so
// that a phase shares its simulations evenly, batch or no batch.
func (s *search) selectConsidered() int32 {
	best := s.gumbel.considered[0]
	for _, c := range s.gumbel.considered[1:] {
		if s.gumbel.assigned[c] < s.gumbel.assigned[best] {
			best = c
		}
	}
	s.gumbel.assigned[best]++
	return s.nodes.At(0).First + best
}

// unassign takes back the phase simulation of a descent that collided with
// a leaf already in the batch.
func (s *search) unassign(path []int32) {
	if s.gumbel.forced && len(path) > 1 {
		s.gumbel.assigned[path[1]-s.nodes.At(0).First]--
	}
}

// rankConsidered sorts the considered root children by noise + logit +
// sigma(completed Q), best first.
func (s *search) rankConsidered() {
	sigma := s.rootSigma()
	slices.SortStableFunc(s.gumbel.considered, func(a, b int32) int {
		return cmp.Compare(s.gumbel.base[b]+sigma[b], s.gumbel.base[a]+sigma[a])
	})
}

// rootSigma returns sigma(completed Q) for every root child, in the order
// of the children. A visited child's Q is its mean value; an unvisited one
// gets the mixed value: the root's value blended with the prior-weighted
// mean Q of the visited children, weighted by their visits. (The paper
// blends the network's own value of the root; a reused root does not keep
// it, so the root's mean value stands in, at weight 1 / (1 + visits).) The completed
// values are rescaled to [0, 1] (min to max) and multiplied by
// (c_visit + the most visits of a child) * c_scale, so that the search's
// values count for more as its evidence grows.
func (s *search) rootSigma() []float64 {
	root := s.nodes.At(0)
	children := s.rootChildren()
	var sumN, maxN int32
	var sumP, sumPQ float64
	for i := range children {
		ch := &children[i]
		if ch.N == 0 {
			continue
		}
		sumN += ch.N
		maxN = max(maxN, ch.N)
		sumP += float64(ch.Prior)
		sumPQ += float64(ch.Prior) * float64(ch.W) / float64(ch.N)
	}
	mixed := 0.0
	if root.N > 0 {
		mixed = float64(-root.W) / float64(root.N)
	}
	if sumP > 0 {
		mixed = (mixed + float64(sumN)*sumPQ/sumP) / (1 + float64(sumN))
	}
	s.gumbel.sigma = slices.Grow(s.gumbel.sigma[:0], len(children))[:len(children)]
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range children {
		q := mixed
		switch ch := &children[i]; {
		case ch.N > 0:
			q = float64(ch.W) / float64(ch.N)
		case ch.State == arena.Terminal:
			// A root child known without a visit (see newChildren).
			q = float64(-s.resultValue(ch.Result, 2))
		}
		s.gumbel.sigma[i] = q
		lo, hi = min(lo, q), max(hi, q)
	}
	scale := (s.cfg.GumbelCVisit + float64(maxN)) * s.cfg.GumbelCScale
	for i := range s.gumbel.sigma {
		s.gumbel.sigma[i] = scale * (s.gumbel.sigma[i] - lo) / max(hi-lo, 1e-8)
	}
	return s.gumbel.sigma
}

// improvedPolicy returns the Gumbel root's training target,
// softmax(logit + sigma(completed Q)) over every root move.
func (s *search) improvedPolicy() map[env.Action]float32 {
	children := s.rootChildren()
	sigma := s.rootSigma()
	top := math.Inf(-1)
	for i := range children {
		sigma[i] += logit(children[i].Prior)
		top = max(top, sigma[i])
	}
	var sum float64
	for i := range sigma {
		sigma[i] = math.Exp(sigma[i] - top)
		sum += sigma[i]
	}
	target := make(map[env.Action]float32, len(children))
	for i := range children {
		target[env.Action(children[i].Action)] = float32(sigma[i] / sum)
	}
	return target
}

// logit returns the log of a prior, kept finite for a prior of 0.
func logit(prior float32) float64 { return math.Log(max(float64(prior), 1e-30)) }

// gumbelNoise draws from the standard Gumbel distribution.
func gumbelNoise(rng *rand.Rand) float64 {
	u := rng.Float64()
	for u == 0 {
		u = rng.Float64()
	}
	return -math.Log(-math.Log(u))
}
