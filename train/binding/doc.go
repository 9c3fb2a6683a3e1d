// Package binding is the project's API for a binding to another language,
// in Go terms: what the C library cmd/libdeathstacks hands out, without
// cgo, handles or threads. Settings come as JSON objects of keyword
// settings (the keys of az player specs and of self-play), positions as
// a FEN and the moves played since, and results go into flat arrays the
// caller owns, a row per position, sample or game, nil to skip one; text
// results are JSON.
//
// What it holds, a file each:
//   - settings.go: keyword settings read into mcts and train settings.
//   - position.go: games of a FEN and moves, notation, the library's
//     constants.
//   - envs.go: one environment's calls, and opponents of a player spec
//     for a vector environment.
//   - player.go: players of any spec and their decisions as JSON.
//   - search.go and selfplay.go: searches of many positions and self-play
//     games guided by an evaluator outside them, as works of a
//     stepped.Run that the caller steps, and their results.
//   - network.go: a network's batched inference, its weights in a flat
//     array, and a player file written back from them.
package binding
