package mcts

import (
	"cmp"
	"math"
	"slices"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/internal/arena"
)

// MoveStats is what a search knows about one root move, for an analysis
// display: lc0's and KataGo's front ends show these per candidate move.
type MoveStats struct {
	Move env.Move
	// Visits is the number of completed simulations through the move.
	Visits int
	// Prior is the evaluator's probability of the move, with the root
	// noise mixed in when the config adds any.
	Prior float32
	// Q is the mean outcome of the move's simulations for the mover, in
	// [-1, 1]; NaN for a move not visited.
	Q float64
	// PV is the most visited line after the move, starting with Move.
	PV []env.Move
}

// RootMoves returns the statistics of every root move of the last search,
// most visited first (ties by prior): nil before the first search and
// after Reset. Searching the same game again with ReuseTree on adds the new
// simulations to the same tree, so a caller can grow an analysis in steps
// and show RootMoves after each.
func (p *PUCTPlayer) RootMoves() []MoveStats {
	s := p.s
	if !s.hasRoot || s.nodes.Len() == 0 || s.nodes.At(0).State != arena.Expanded {
		return nil
	}
	root := s.nodes.At(0)
	out := make([]MoveStats, 0, root.Count)
	for c := root.First; c < root.First+int32(root.Count); c++ {
		ch := s.nodes.At(c)
		q := math.NaN()
		if ch.N > 0 {
			q = float64(ch.W / float32(ch.N))
		}
		out = append(out, MoveStats{Move: ch.Move, Visits: int(ch.N), Prior: ch.Prior, Q: q, PV: s.line(c)})
	}
	slices.SortStableFunc(out, func(a, b MoveStats) int {
		if c := cmp.Compare(b.Visits, a.Visits); c != 0 {
			return c
		}
		return cmp.Compare(b.Prior, a.Prior)
	})
	return out
}
