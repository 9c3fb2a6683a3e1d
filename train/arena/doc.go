// Package arena plays games between players. [RoundRobin] and
// [PlayMatch] play every pair of entrants from shared random openings, in
// parallel and reproducibly, each game with fresh players from their
// factories; a player that errs, panics or moves illegally forfeits its
// game, and the tournament goes on. [PlaySPRT] plays pairs of games between
// two players until the sequential test of package elo decides;
// [PlayEvaluation] plays the one or the other, for the eval command and
// the C library's evaluate. Each game ends as a [GameRecord], enough to
// replay it; a [Journal] keeps the
// records of the games finished while a tournament plays, so that one cut
// short goes on from them ([Config.Played]) to the same games.
// [CallerPlayers] are players whose moves or leaf evaluations come from
// the caller's loop (the C library's Python players): the leaves of all
// the games of an evaluator player go to the caller in one batch.
//
// It holds what playing takes and nothing of what the games mean: package
// elo rates the players from [Results], package report writes what an
// evaluation's games say, and package ladder plays its matches here. It
// needs only the rules, the search and the players; package train plays
// the evaluations of its loop here, and the eval command uses it directly.
package arena
