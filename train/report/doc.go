// Package report says what the games of a tournament mean and writes it
// down. [New] rates the players of a round robin's game records (see
// package arena) with package elo, sums up each pair's results and how
// their games ended ([Conversion]), and gives the [Report] of an
// evaluation: results.json, report.md, games.jsonl and elo.png
// ([Report.Save]). A [LadderReport] is the same for a ladder, with each
// network snapshot's rating against training time: ladder.json, ladder.md,
// ladder-games.jsonl and ladder.png. The names of these files, and of the
// journals that hold the games while they play, are the constants that
// the eval and ladder commands write and the web app's replay reads.
// [Folder.Holds] says what an output folder holds (nothing, an unfinished
// evaluation or ladder, a finished one), and [Output] whether it takes the
// games asked for, for those commands and the C library's evaluate alike.
//
// Both reports live here, beside the tables, captions and file writing
// they share; package ladder, which plays a ladder, fills in its report.
// The package only reads records: it plays no game.
package report
