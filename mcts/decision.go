package mcts

import (
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
	// Depth is the last completed search depth (alpha-beta), or the
	// length in plies of a forced win the root's win search proved.
	Depth int
	// Score is the alpha-beta score for the mover; for a proven win,
	// env.WinMaterial minus its length in plies, as alpha-beta scores it.
	Score int
	// Nodes is the number of positions searched.
	Nodes int64
}
