package mcts

import "github.com/deathstacks/deathstacks/env"

// Evaluator scores positions for the search, many at a time.
//
// Evaluate takes n = len(values) positions: obs holds n*env.ObservationSize
// values (the observations, one after the other) and legal[i] the legal
// actions of position i, none empty. It writes priors[i][j], the probability
// of legal[i][j] (len(priors[i]) == len(legal[i]), summing to 1), and
// values[i], the expected outcome in [-1, 1] for the side to move in
// position i. Implementations used by concurrent searches must be safe for
// concurrent use.
type Evaluator interface {
	Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error
}

// Player chooses moves. Every player has its own seed, so a match between
// seeded players can be replayed.
type Player interface {
	// Choose returns a move for the current position of g, which must be
	// ongoing, and what the player knows about it. It must not change g.
	Choose(g *env.Game) (Decision, error)
}
