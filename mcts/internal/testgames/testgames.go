// Package testgames builds the games and positions that the tests of the
// search and of the players share, and checks them by brute force.
package testgames

import (
	"math/rand/v2"
	"testing"

	"github.com/deathstacks/deathstacks/env"
)

// WinInOneFENs are positions with a win in one move.
var WinInOneFENs = []struct{ Name, FEN string }{
	{"adjacent", FEN(map[string]string{"c4": "r", "a6": "rr", "c3": "b"}, 'r')},
	{"blue three-piece diagonal", FEN(map[string]string{"a1": "bbb", "f1": "bb", "d4": "rr"}, 'b')},
	{"too-tall stack must do it", FEN(map[string]string{"a1": "rrrrr", "a5": "r", "a6": "b"}, 'r')},
	{"reflected move", FEN(map[string]string{"d5": "rrrr", "d3": "bb", "f6": "rb"}, 'r')},
	{"capture a mixed stack", FEN(map[string]string{"b2": "rb", "e5": "brrb", "e2": "bb", "a6": "br"}, 'b')},
}

// RandomGame plays up to plies uniformly random moves from the start with a
// seeded generator and returns the game, still ongoing.
func RandomGame(tb testing.TB, seed uint64, plies int) *env.Game {
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

// MiddleGames returns a few games in their middle, reached by random
// moves, so that benchmarks see stacks of several heights and not only the
// start.
func MiddleGames(tb testing.TB) []*env.Game {
	tb.Helper()
	var games []*env.Game
	for i := uint64(0); i < 4; i++ {
		games = append(games, RandomGame(tb, i, 10+int(i)*8))
	}
	return games
}

// DeepWinFEN is a position from a game drawn at the move limit while Red
// was far ahead: alpha-beta at depth 8 proves a win in 7 plies, which the
// tree search at 5,000 simulations did not see.
const DeepWinFEN = ",rb,rb,rbb,rbb,/,rb,,rb,,/,,rr,,rb,/,rb,r,r,,/,,,,,/,,,,,bb r"

// Position parses a FEN, failing the test if it does not parse.
func Position(tb testing.TB, fen string) env.Position {
	tb.Helper()
	p, err := env.ParseFEN(fen)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// CheckWin fails the test unless line, played from pos, is legal and
// ends with the side to move of pos controlling every stack.
func CheckWin(t testing.TB, pos env.Position, line []env.Move) {
	t.Helper()
	p, side := pos, pos.SideToMove()
	for i, m := range line {
		if !p.IsLegal(m, true) {
			t.Fatalf("line %v: move %d (%v) is illegal", line, i+1, m)
		}
		p.Apply(m)
	}
	if w, ok := p.Winner(); !ok || w != side {
		t.Fatalf("line %v does not end in a win for %v", line, side)
	}
}

// GameFromFEN starts a game from a FEN with the default rules.
func GameFromFEN(tb testing.TB, fen string) *env.Game {
	tb.Helper()
	return env.NewGameFrom(Position(tb, fen), env.DefaultRules())
}

// FEN builds a FEN from squares and their stacks (top piece first) and
// the side to move, 'r' or 'b'.
func FEN(stacks map[string]string, side byte) string {
	var b []byte
	for rank := env.BoardSize; rank >= 1; rank-- {
		for file := 0; file < env.BoardSize; file++ {
			b = append(b, stacks[string([]byte{byte('a' + file), byte('0' + rank)})]...)
			if file < env.BoardSize-1 {
				b = append(b, ',')
			}
		}
		if rank > 1 {
			b = append(b, '/')
		}
	}
	return string(append(b, ' ', side))
}

// WinningMoves lists, by brute force, the moves of p after which the mover
// controls every stack.
func WinningMoves(p env.Position, tooTall bool) []env.Move {
	var wins []env.Move
	for _, m := range p.LegalMoves(nil, tooTall) {
		child := p
		child.Apply(m)
		if w, ok := child.Winner(); ok && w == p.SideToMove() {
			wins = append(wins, m)
		}
	}
	return wins
}

// ForcesWin reports, by brute force, whether m wins at once or leaves the
// opponent only replies after which the mover has a winning move: a win in
// at most two moves.
func ForcesWin(p env.Position, m env.Move, tooTall bool) bool {
	child := p
	child.Apply(m)
	if w, ok := child.Winner(); ok {
		return w == p.SideToMove()
	}
	for _, r := range child.LegalMoves(nil, tooTall) {
		after := child
		after.Apply(r)
		if after.Finished() || len(WinningMoves(after, tooTall)) == 0 {
			return false
		}
	}
	return true
}

// WinInTwoPositions returns n positions, drawn with a seeded generator from
// small random ones, where Red to move has no win in one move but a win in
// two that Blue cannot prevent, each checked by brute force.
func WinInTwoPositions(tb testing.TB, n int) []env.Position {
	tb.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	var found []env.Position
	for try := 0; len(found) < n; try++ {
		if try > 200000 {
			tb.Fatalf("found only %d win-in-two positions", len(found))
		}
		p, err := RandomSmallPosition(rng)
		if err != nil || p.Finished() || len(WinningMoves(p, true)) > 0 {
			continue
		}
		for _, m := range p.LegalMoves(nil, true) {
			if ForcesWin(p, m, true) {
				found = append(found, p)
				break
			}
		}
	}
	return found
}

// RandomSmallPosition puts 2-3 red-topped and 2 blue-topped stacks of 1-3
// pieces on random squares, Red to move. It fails when a colour gets more
// than 12 pieces.
func RandomSmallPosition(rng *rand.Rand) (env.Position, error) {
	var stacks [env.NumSquares]env.Stack
	squares := rng.Perm(env.NumSquares)
	place := func(i int, top env.Color) {
		pieces := []env.Color{top}
		for range rng.IntN(3) {
			pieces = append(pieces, env.Color(rng.IntN(2)))
		}
		stacks[squares[i]] = env.NewStack(pieces...)
	}
	nRed := 2 + rng.IntN(2)
	for i := range nRed {
		place(i, env.Red)
	}
	place(nRed, env.Blue)
	place(nRed+1, env.Blue)
	return env.NewPosition(stacks, env.Red)
}

// ContainsMove reports whether ms holds m.
func ContainsMove(ms []env.Move, m env.Move) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}
