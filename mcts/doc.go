// Package mcts chooses moves: a PUCT Monte-Carlo tree search guided by an
// [Evaluator] (the network, a uniform evaluator or a test double) with
// batched leaf evaluation, and the baseline players (random, greedy,
// alpha-beta, UCT with rollouts) behind one [Player] interface.
//
// The AlphaZero player is [NewPUCTPlayer] with a network evaluator (the
// model's batching server) and a [Config]; its [Decision] carries the visit
// counts ([Decision.SparsePolicy], [Decision.VisitPolicy]) and the policy
// target self-play trains on ([Decision.Target]). With Config.Gumbel the
// root is Gumbel AlphaZero's (sequential halving over moves sampled by
// Gumbel noise, an improved-policy target), for searches with fewer
// simulations than legal moves; below the root the search is always PUCT. Players are named by specs such as
// "alphabeta:depth=4" or "az:model=PATH,sims=200": [ParseSpec] reads one
// and [NewPlayer] builds it, with an [AZLoader] from package train for az
// players. Values are always for the side to move, in [-1, 1].
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
