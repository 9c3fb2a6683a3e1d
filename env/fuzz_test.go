package env

import (
	"slices"
	"strings"
	"testing"
)

// fuzzFENs seed the FEN fuzzers: valid positions of every kind and the
// malformed ones the parser must reject.
var fuzzFENs = []string{
	StartFEN,
	"bb,bb,bb,bb,bb,bb/,,,,,/,,,,,/,,,,,/,,,,,/rr,rr,rr,rr,rr,rr b",
	"bbrrbrr,,,,,/,,,,,/,,,rb,,/,,rrrrbr,,,/,,,,,/,,,,,b b",
	"rrrrrrrrrrrbbbbbbbbbbb,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,,b r",
	"rb,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,,r b",
	",,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,, r",
	"rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb r",
	"rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb r",
	"rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,rx,,,/,,,,,/bb,bb,bb,bb,bb,bb r",
	"rrr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb r",
	"rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb",
	"rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb x",
	"",
}

func FuzzParseFEN(f *testing.F) {
	for _, fen := range fuzzFENs {
		f.Add(fen)
	}
	f.Fuzz(func(t *testing.T, fen string) {
		p, err := ParseFEN(fen)
		if refused(t, err, "fen") {
			return
		}
		if p.Pieces(Red) > piecesPerSide || p.Pieces(Blue) > piecesPerSide || p.Ply() != 0 {
			t.Fatalf("%q: %d red, %d blue, ply %d", fen, p.Pieces(Red), p.Pieces(Blue), p.Ply())
		}
		text := p.FEN()
		q, err := ParseFEN(text)
		if err != nil || q != p || q.FEN() != text {
			t.Fatalf("%q: FEN() = %q reads back as %q, %v", fen, text, q.FEN(), err)
		}
		if p.Hash() != p.computeHash() || p.control != p.computeControl() {
			t.Fatalf("%q: hash or control not set", fen)
		}
		for _, tooTall := range []bool{true, false} {
			moves := p.LegalMoves(nil, tooTall)
			if len(moves) != p.CountMoves(tooTall) {
				t.Fatalf("%q: %d moves, CountMoves %d", fen, len(moves), p.CountMoves(tooTall))
			}
		}
		_ = p.Render()
	})
}

func FuzzParseMove(f *testing.F) {
	for _, s := range []string{"a6-2-a4", "f1-24-a1", "c3-10-c3", "a6-0-a4", "a6-02-a4", "a6-+2-a4", "g1-1-a1", "a1-1", "", "-", "a1--1-a2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		m, err := ParseMove(text)
		if refused(t, err, "move") {
			return
		}
		if m.From >= NumSquares || m.To >= NumSquares || m.Count < 1 || m.Count > maxHeight {
			t.Fatalf("%q: out-of-range move %+v", text, m)
		}
		if m.String() != text {
			t.Fatalf("%q reads as %v, which prints differently", text, m)
		}
	})
}

func FuzzMoveOf(f *testing.F) {
	for _, a := range []int{0, 1, 35, 36, NumActions - 1, NumActions, -1, 2 * NumActions} {
		f.Add(a)
	}
	f.Fuzz(func(t *testing.T, i int) {
		a := Action(i)
		m, err := MoveOf(a)
		if err != nil {
			return
		}
		from, d, k := a.parts()
		if m.From != from || int(m.Count) != k || m.To != Destination(from, d, k) || m.To == m.From {
			t.Fatalf("MoveOf(%d) = %v, not its parts %v %v %d", i, m, from, d, k)
		}
		if back, err := ActionOf(m); err != nil || back != a {
			t.Fatalf("ActionOf(MoveOf(%d)) = %d, %v", i, back, err)
		}
	})
}

func FuzzCheckMove(f *testing.F) {
	moves := []string{"a6-2-a4", "a6-1-a5", "c3-5-c4", "c3-4-c3", "a1-1-a2", "f6-24-a1"}
	for i, fen := range fuzzFENs {
		f.Add(fen, moves[i%len(moves)], i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, fen, text string, tooTall bool) {
		p, err := ParseFEN(fen)
		if err != nil {
			return
		}
		m, err := ParseMove(text)
		if err != nil {
			return
		}
		generated := slices.Contains(p.LegalMoves(nil, tooTall), m)
		err = p.CheckMove(m, tooTall)
		if (err == nil) != generated {
			t.Fatalf("%q %v (too-tall %v): generated %v, CheckMove %v", fen, m, tooTall, generated, err)
		}
		if err != nil {
			return
		}
		q := p
		q.Apply(m)
		if q.Pieces(Red) != p.Pieces(Red) || q.Pieces(Blue) != p.Pieces(Blue) || q.Hash() != q.computeHash() {
			t.Fatalf("%q %v: pieces or hash wrong after the move", fen, m)
		}
		q.undo(m)
		if q != p {
			t.Fatalf("%q %v: undo gives %q", fen, m, q.FEN())
		}
	})
}

// refused reports whether a parser refused its input, and checks that the
// error starts by saying what it is about ("fen ...", "move ...").
func refused(t *testing.T, err error, about string) bool {
	t.Helper()
	if err == nil {
		return false
	}
	if !strings.HasPrefix(err.Error(), about+" ") {
		t.Errorf("error %q does not say it is about the %s", err, about)
	}
	return true
}
