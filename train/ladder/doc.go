// Package ladder rates the network snapshots of one or more training runs
// on one Elo scale, against baseline players and each other. [New] picks
// the snapshots of each [Run] to rate; [Ladder.Play] plays the ladder's
// matches in package arena, serving each snapshot's network through
// [Networks] only from its first match to its last, and returns the
// report.LadderReport of all its games; [Ladder.JournalHeader] heads the
// journal of its games, so that a ladder cut short goes on from them.
//
// Package train reads a run directory into a [Run] (train.LadderRun) and
// serves the networks (train.Models); the ladder command wires them.
package ladder
