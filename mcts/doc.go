// Package mcts chooses moves by tree search: PUCT guided by an [Evaluator]
// (the network, a uniform evaluator or a test double) with batched leaf
// evaluation, a Gumbel AlphaZero root, and UCT with random rollouts, each
// behind the one [Player] interface.
//
// The AlphaZero player is [NewPUCTPlayer] with a network evaluator (the
// model's batching server) and a [Config]; its [Decision] carries the
// root's visits and the policy target self-play trains on
// ([Decision.Target]). With Config.Gumbel the root is Gumbel AlphaZero's
// (sequential halving over moves sampled by Gumbel noise, an
// improved-policy target), for searches with fewer simulations than legal
// moves; below the root the search is always PUCT. [Settings] names every
// field of Config once: its key in config files and player specs. The
// baseline players without a tree and the player specs are in package
// mcts/players. Values are always for the side to move, in [-1, 1].
package mcts
