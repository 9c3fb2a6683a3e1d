// Package eval measures players against each other without training:
// [PlayMatch] and [RoundRobin] play games between players built from
// factories, in parallel and reproducibly, surviving players that cheat,
// fail or panic; [PlaySPRT] plays pairs of games between two until a
// sequential probability ratio test decides; [FitElo] rates the players
// from the results; a [Report]
// writes the tables, results.json, games.jsonl and an Elo chart; a
// [Ladder] rates the network snapshots of one or more training runs on
// one scale, their networks served by [Networks]; a [Journal] keeps the games finished while either plays, so that one cut
// short goes on from them ([ArenaConfig.Played]).
//
// It needs only the rules, the search and the players; package train
// calls it for the evaluations of its loop, and the eval and ladder
// commands use it directly.
package eval
