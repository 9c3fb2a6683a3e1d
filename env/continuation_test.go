package env

import (
	"strconv"
	"testing"
)

func TestContinuation(t *testing.T) {
	// From random games: the position after k more random plies is found
	// within k plies, by moves that do reach it.
	rng := newRNG(21)
	for i := range 60 {
		g := NewGame(DefaultRules())
		for range rng.IntN(40) {
			moves := g.LegalMoves(nil)
			if len(moves) == 0 {
				break
			}
			if err := g.Play(moves[rng.IntN(len(moves))]); err != nil {
				t.Fatal(err)
			}
		}
		if g.Status().Over() {
			continue
		}
		k := i % 3
		later := g.Clone()
		for range k {
			moves := later.LegalMoves(nil)
			if len(moves) == 0 {
				break
			}
			if err := later.Play(moves[rng.IntN(len(moves))]); err != nil {
				t.Fatal(err)
			}
		}
		target := later.Position()
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			moves, ok := g.Continuation(&target, 2)
			if !ok || len(moves) > k {
				t.Fatalf("%d plies on: found %v, %v: want at most %d moves", k, moves, ok, k)
			}
			pos := g.Position()
			for _, m := range moves {
				if err := pos.CheckMove(m, true); err != nil {
					t.Fatal(err)
				}
				pos.Apply(m)
			}
			if !pos.SameAs(&target) {
				t.Errorf("the moves %v reach %v, not %v", moves, pos.FEN(), target.FEN())
			}
		})
	}
	t.Run("another game", func(t *testing.T) {
		g := NewGameFrom(mustFEN(t, "r,,,,,/,,,,,/,,rr,,,/,,,,,/,,,,,/,,,,,bb r"), DefaultRules())
		start := StartPosition()
		if moves, ok := g.Continuation(&start, 2); ok {
			t.Errorf("the start position found as a continuation: %v", moves)
		}
		three := mustFEN(t, "r,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,,bb r")
		if moves, ok := g.Continuation(&three, 2); ok {
			t.Errorf("a position with pieces gone found as a continuation: %v", moves)
		}
	})
}
