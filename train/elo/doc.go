// Package elo holds the statistics of playing strength that need no
// games, only their results: [Fit] rates players by Bradley-Terry
// (logistic Elo) with 95% intervals, one of them anchored at 0, and an
// [SPRT] decides between two hypotheses about how much stronger one player
// is than another from pairs of games counted as a [Pentanomial] (the
// normalized SPRT of fishtest and fastchess).
//
// It knows nothing of players, positions or files, so that whatever has
// results rates them the one way: package arena turns its game records
// into [GameResult]s and counts the pairs of an SPRT, package report rates
// a tournament, and training rates its network against each baseline.
package elo
