// Package players holds the baseline players and the player specs.
//
// The baselines need no network: [NewRandomPlayer], [NewGreedyPlayer]
// (the best material count after one ply, env.Position.Material) and
// [NewAlphaBetaPlayer] (negamax with iterative deepening and a
// transposition table); UCT with random rollouts is package mcts's
// tree search. A [Spec] names any player in text ("greedy",
// "alphabeta:depth=4", "mcts:simulations=1000", "az:model=PATH,simulations=200"):
// [ParseSpec] reads one and [NewPlayer] builds it, with an [AZLoader]
// (package train's) for az players. A kind's keys are the YAML keys of its
// settings, from one table each (configs.Table): [AlphaBetaConfig]'s,
// mcts.UCTConfig's and mcts.Config's, with the names of earlier versions
// ("sims", "c", "cpuct") as aliases, and each range checked once, the
// same for a spec as for a config's Validate.
//
// An [ExternalPlayer] is another program speaking the protocol of
// `deathstacks bot`, named by a cmd spec ("cmd:./engine --depth 3",
// "cmd(timeout=2s):./engine"): its command line is the rest of the spec,
// split into words as a shell would, without one; its one setting
// ([ExternalConfig]'s table) goes in parentheses. Its failures
// ([ErrMoveTimeout], [ErrProgramExited], [ErrMalformedAnswer]) are what
// the arena records as the reasons of lost games.
package players
