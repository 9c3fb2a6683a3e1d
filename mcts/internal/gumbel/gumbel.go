// Package gumbel is the Gumbel AlphaZero root of a search, after
// Danihelka et al., "Policy improvement by planning with Gumbel" (ICLR
// 2022): the moves it considers, their ranking and its policy target.
// PUCT's visit shares are a poor policy target when a search has fewer
// simulations than the root has moves: most moves get no visit at all
// and the shares mostly echo the prior, so a prior that overlooks a
// capture never learns it. The Gumbel root instead samples the moves it
// considers without replacement (the Gumbel-top-k trick on the prior's
// logits), gives them the simulations by sequential halving, and trains
// towards softmax(logit + sigma(completed Q)), which moves probability
// towards the moves the search found good and keeps the prior for the
// others. Package mcts runs the halving's phases; below the root its
// search stays PUCT.
package gumbel

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/internal/arena"
)

// Root is the state of a Gumbel root during one search, reused between
// searches to avoid garbage: Start sets it up, the search narrows the
// considered moves phase by phase (NewPhase, Rank, Halve), and its
// descents start at the child Select gives while Forced. Children are
// named by their offsets among the root's children; base, sigma and
// assigned are indexed by them.
type Root struct {
	// base is each root child's noise + logit, the fixed part of its
	// rank; sigma is sigma(completed Q) scratch (see sigma).
	base, sigma []float64
	// considered holds the children still in the halving, best first
	// after each ranking; assigned counts the simulations each child got
	// in the current phase.
	considered, assigned []int32
	// Forced says descents start at a considered child (see Select)
	// instead of by PUCT.
	Forced bool
}

// Sigma is what sigma(completed Q) takes from the search's settings:
// c_visit and c_scale (see mcts.Config.GumbelCVisit), and Draw, what a
// draw is worth to the side to move at the root.
type Sigma struct {
	CVisit, CScale float64
	Draw           float32
}

// Start considers the root's best moves by noise + logit, at most
// considered of them, the noise drawn from rng and scaled by temp (with
// temp 0 there is none, and the search and the choice are
// deterministic).
func (r *Root) Start(children []arena.Node, rng *rand.Rand, temp float64, considered int) {
	r.base = r.base[:0]
	r.considered = r.considered[:0]
	for i := range children {
		g := 0.0
		if temp > 0 {
			g = temp * noise(rng)
		}
		r.base = append(r.base, g+logit(children[i].Prior))
		r.considered = append(r.considered, int32(i))
	}
	slices.SortStableFunc(r.considered, func(a, b int32) int {
		return cmp.Compare(r.base[b], r.base[a])
	})
	r.considered = r.considered[:min(considered, len(children))]
	r.assigned = slices.Grow(r.assigned[:0], len(children))[:len(children)]
}

// Considered returns the number of moves still in the halving.
func (r *Root) Considered() int { return len(r.considered) }

// NewPhase starts a phase of the halving: no move has had a simulation
// of it.
func (r *Root) NewPhase() { clear(r.assigned) }

// Halve keeps the better half of the considered moves, as last ranked.
func (r *Root) Halve() { r.considered = r.considered[:(len(r.considered)+1)/2] }

// Best returns the best considered move, as last ranked.
func (r *Root) Best() int32 { return r.considered[0] }

// Select returns the considered root child that has had the fewest
// simulations of this phase (the better-ranked one on ties), and counts
// one more for it, so that a phase shares its simulations evenly, batch
// or no batch.
func (r *Root) Select() int32 {
	best := r.considered[0]
	for _, c := range r.considered[1:] {
		if r.assigned[c] < r.assigned[best] {
			best = c
		}
	}
	r.assigned[best]++
	return best
}

// Unassign takes back the phase simulation of child c, whose descent
// collided with a leaf already in the batch.
func (r *Root) Unassign(c int32) { r.assigned[c]-- }

// Rank sorts the considered root children by noise + logit +
// sigma(completed Q), best first.
func (r *Root) Rank(root *arena.Node, children []arena.Node, sg Sigma) {
	sigma := r.rootSigma(root, children, sg)
	slices.SortStableFunc(r.considered, func(a, b int32) int {
		return cmp.Compare(r.base[b]+sigma[b], r.base[a]+sigma[a])
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
func (r *Root) rootSigma(root *arena.Node, children []arena.Node, sg Sigma) []float64 {
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
	r.sigma = slices.Grow(r.sigma[:0], len(children))[:len(children)]
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range children {
		q := mixed
		switch ch := &children[i]; {
		case ch.N > 0:
			q = float64(ch.W) / float64(ch.N)
		case ch.State == arena.Terminal && ch.Result != 0:
			// A root child known without a visit: a win or a loss for
			// its side to move, the other way round for the root's.
			q = float64(-ch.Result)
		case ch.State == arena.Terminal:
			q = float64(sg.Draw)
		}
		r.sigma[i] = q
		lo, hi = min(lo, q), max(hi, q)
	}
	scale := (sg.CVisit + float64(maxN)) * sg.CScale
	for i := range r.sigma {
		r.sigma[i] = scale * (r.sigma[i] - lo) / max(hi-lo, 1e-8)
	}
	return r.sigma
}

// ImprovedPolicy returns the Gumbel root's training target,
// softmax(logit + sigma(completed Q)) over every root move.
func (r *Root) ImprovedPolicy(root *arena.Node, children []arena.Node, sg Sigma) map[env.Action]float32 {
	sigma := r.rootSigma(root, children, sg)
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

// noise draws from the standard Gumbel distribution.
func noise(rng *rand.Rand) float64 {
	u := rng.Float64()
	for u == 0 {
		u = rng.Float64()
	}
	return -math.Log(-math.Log(u))
}
