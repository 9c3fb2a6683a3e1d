package mcts

import (
	"cmp"
	"slices"

	"github.com/deathstacks/deathstacks/env"
)

// Decision is a player's move and what it knows about it. Fields a player
// does not have are zero (Value is then NaN where 0 would mislead).
type Decision struct {
	Move env.Move
	// Value is the expected outcome for the mover in [-1, 1], or NaN.
	Value float64
	// PV is the principal variation, starting with Move.
	PV []env.Move
	// Simulations is the number of search simulations (MCTS players).
	Simulations int
	// Visits maps each root action to its visit count (MCTS players).
	Visits map[env.Action]int
	// Target is the policy the search proposes to train on, over every
	// root action and summing to 1: the visit shares after a PUCT root,
	// the improved policy after a Gumbel root (see Config.Gumbel); nil for
	// players without a search tree.
	Target map[env.Action]float32
	// Depth is the last completed search depth (alpha-beta).
	Depth int
	// Score is the alpha-beta score for the mover.
	Score int
	// Nodes is the number of positions searched.
	Nodes int64
}

// ActionCount is one root action with its visit count.
type ActionCount struct {
	Action env.Action
	Count  int
}

// VisitPairs returns the visit counts of the root actions as pairs sorted
// by action, for a deterministic order; nil for players without visits.
func (d Decision) VisitPairs() []ActionCount {
	if len(d.Visits) == 0 {
		return nil
	}
	pairs := make([]ActionCount, 0, len(d.Visits))
	for a, n := range d.Visits {
		pairs = append(pairs, ActionCount{Action: a, Count: n})
	}
	slices.SortFunc(pairs, func(x, y ActionCount) int { return cmp.Compare(x.Action, y.Action) })
	return pairs
}

// VisitCounts writes the visit counts into a dense vector over the action
// space, zero for actions not visited, reusing dst when it has room for
// env.NumActions values, and returns it.
func (d Decision) VisitCounts(dst []float32) []float32 {
	dst = slices.Grow(dst[:0], env.NumActions)[:env.NumActions]
	clear(dst)
	for a, n := range d.Visits {
		dst[a] = float32(n)
	}
	return dst
}

// VisitPolicy is VisitCounts normalised to sum to 1: the policy target of
// AlphaZero training. It is all zero when there are no visits.
func (d Decision) VisitPolicy(dst []float32) []float32 {
	dst = d.VisitCounts(dst)
	var total float32
	for _, n := range d.Visits {
		total += float32(n)
	}
	if total > 0 {
		for a := range d.Visits {
			dst[a] /= total
		}
	}
	return dst
}

// SparsePolicy returns the root actions sorted by action and their shares
// of the visits, summing to 1: the policy target in the sparse form of a
// training sample (legal actions and one probability each). Both are nil
// for players without visits.
func (d Decision) SparsePolicy() (actions []env.Action, policy []float32) {
	pairs := d.VisitPairs()
	var total float32
	for _, p := range pairs {
		total += float32(p.Count)
	}
	if total == 0 {
		return nil, nil
	}
	actions, policy = make([]env.Action, len(pairs)), make([]float32, len(pairs))
	for i, p := range pairs {
		actions[i], policy[i] = p.Action, float32(p.Count)/total
	}
	return actions, policy
}
