package players

import "math/rand/v2"

// newRand returns the generator of a seeded player: the stream package
// mcts gives its players, so that a player's games do not change with the
// package it lives in.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x6d637473)) // "mcts"
}
