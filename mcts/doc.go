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
// moves; below the root the search is always PUCT. Before either, an exact
// win search (Config.WinSearchPlies, a node budget) looks for a forced
// win at the root when the opponent has few stacks left, and a win it
// proves is played by its shortest line: the network's value is near +1
// in every won endgame, so the tree alone shuffles there. Config's
// MaterialUtility mixes the material lead into leaf values for the same
// reason, further from the end. Package stepped runs many searches (of
// positions, or of self-play games) guided by one evaluator outside
// them: the caller gathers their leaves into its own buffers, evaluates
// them in one batch and feeds the results back, round after round.
// [Settings] names every
// field of Config once: its key in config files and player specs. Values
// are always for the side to move, in [-1, 1].
//
// [NewUCTPlayer], the pure Monte-Carlo baseline, is search and stays here:
// it is this package's tree (the same nodes, tree reuse and decision)
// with UCB1 selection in place of PUCT and random rollouts at the leaves,
// and both of those are switches inside the search. As a player of
// package mcts/players it would need the selection rule and the leaf
// evaluation exported as hooks, an API with no other user. The baseline
// players without a tree (random, greedy, alpha-beta) and the player
// specs, uct's included, are in package mcts/players.
package mcts
