package mcts

import (
	"math/rand/v2"
	"testing"

	"github.com/deathstacks/deathstacks/env"
)

// randomGame plays up to plies uniformly random moves from the start with a
// seeded generator and returns the game, still ongoing.
func randomGame(tb testing.TB, seed uint64, plies int) *env.Game {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, 99))
	g := env.NewGame(env.DefaultRules())
	for range plies {
		moves := g.LegalMoves(nil)
		next := g.Clone()
		if err := next.Play(moves[rng.IntN(len(moves))]); err != nil {
			tb.Fatal(err)
		}
		if next.Status().Over() {
			break
		}
		g = next
	}
	return g
}

// gameFromFEN starts a game from a FEN with the default rules.
func gameFromFEN(tb testing.TB, fen string) *env.Game {
	tb.Helper()
	p, err := env.ParseFEN(fen)
	if err != nil {
		tb.Fatal(err)
	}
	return env.NewGameFrom(p, env.DefaultRules())
}
