package env

import (
	"strings"
	"testing"
)

// refBoard is a deliberately plain model of RULES.md, written independently
// of the engine's packed stacks, period tables and Zobrist hashing, to check
// the engine against: each square holds its pieces from the top down as FEN
// text, and lifted pieces walk one square at a time, turning back at an edge.
type refBoard struct {
	squares [NumSquares]string
	side    byte
}

// refFromFEN reads a board from a valid FEN by plain splitting.
func refFromFEN(fen string) refBoard {
	board, side, _ := strings.Cut(fen, " ")
	b := refBoard{side: side[0]}
	for i, rank := range strings.Split(board, "/") {
		for file, text := range strings.Split(rank, ",") {
			b.squares[(5-i)*6+file] = text
		}
	}
	return b
}

// fen writes the board in FEN.
func (b refBoard) fen() string {
	ranks := make([]string, 6)
	for i := range ranks {
		ranks[i] = strings.Join(b.squares[(5-i)*6:(6-i)*6], ",")
	}
	return strings.Join(ranks, "/") + " " + string(b.side)
}

// refStep takes one step from x in direction dx along one axis, turning back
// at the edge, and returns the new coordinate and direction.
func refStep(x, dx int) (int, int) {
	if x+dx < 0 || x+dx > 5 {
		dx = -dx
	}
	return x + dx, dx
}

// refWalk returns where k steps in direction (dx, dy) from square s end.
func refWalk(s, dx, dy, k int) int {
	x, y := s%6, s/6
	for range k {
		x, dx = refStep(x, dx)
		y, dy = refStep(y, dy)
	}
	return y*6 + x
}

// refDirections lists the eight (file, rank) steps.
var refDirections = [][2]int{{0, 1}, {1, 1}, {1, 0}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0}, {-1, 1}}

// moves returns the legal moves of the board as a set.
func (b refBoard) moves(tooTall bool) map[Move]bool {
	own, opp := false, false
	var tall []int
	for s, text := range b.squares {
		if text == "" {
			continue
		}
		if text[0] == b.side {
			own = true
			if len(text) > 4 {
				tall = append(tall, s)
			}
		} else {
			opp = true
		}
	}
	moves := map[Move]bool{}
	if !own || !opp {
		return moves
	}
	for s, text := range b.squares {
		if text == "" || text[0] != b.side {
			continue
		}
		kmin := 1
		if tooTall && len(tall) > 0 {
			if !containsInt(tall, s) {
				continue
			}
			kmin = len(text) - 4
		}
		for k := kmin; k <= len(text); k++ {
			for _, d := range refDirections {
				if t := refWalk(s, d[0], d[1], k); t != s {
					moves[Move{From: Square(s), To: Square(t), Count: uint8(k)}] = true
				}
			}
		}
	}
	return moves
}

func containsInt(list []int, x int) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

// apply plays a move on a copy of the board.
func (b refBoard) apply(m Move) refBoard {
	lifted := b.squares[m.From][:m.Count]
	b.squares[m.From] = b.squares[m.From][m.Count:]
	b.squares[m.To] = lifted + b.squares[m.To]
	if b.side == 'r' {
		b.side = 'b'
	} else {
		b.side = 'r'
	}
	return b
}

// perft counts move sequences on the reference board.
func (b refBoard) perft(depth int, tooTall bool) uint64 {
	if depth == 0 {
		return 1
	}
	var n uint64
	for m := range b.moves(tooTall) {
		n += b.apply(m).perft(depth-1, tooTall)
	}
	return n
}

func TestReferenceModelPerft(t *testing.T) {
	// The reference must itself reproduce the published figures before it
	// can vouch for the engine.
	start := refFromFEN(StartFEN)
	for depth, want := range []uint64{1, 48, 2304, 116928} {
		if got := start.perft(depth, true); got != want {
			t.Errorf("reference perft(%d) = %d, want %d", depth, got, want)
		}
	}
}

func TestEngineMatchesReference(t *testing.T) {
	for i, smp := range samples(1, 20, 120, 400) {
		p := smp.pos
		fen := p.FEN()
		ref := refFromFEN(fen)
		want := ref.moves(smp.tooTall)
		got := moveSet(t, p.LegalMoves(nil, smp.tooTall))
		for m := range want {
			if !got[m] {
				t.Errorf("sample %d %q (too-tall %v): engine misses %v", i, fen, smp.tooTall, m)
			}
		}
		for m := range got {
			if !want[m] {
				t.Errorf("sample %d %q (too-tall %v): engine generates %v, which the rules do not allow", i, fen, smp.tooTall, m)
				continue
			}
			child := p
			child.Apply(m)
			if g, w := child.FEN(), ref.apply(m).fen(); g != w {
				t.Errorf("sample %d %q: after %v engine has %q, rules give %q", i, fen, m, g, w)
			}
		}
		if t.Failed() {
			t.FailNow()
		}
	}
}

func TestDestinationMatchesWalk(t *testing.T) {
	for s := Square(0); s < NumSquares; s++ {
		for d := Direction(0); d < numDirections; d++ {
			for k := 1; k <= maxHeight; k++ {
				step := refDirections[d]
				if got, want := Destination(s, d, k), Square(refWalk(int(s), step[0], step[1], k)); got != want {
					t.Errorf("Destination(%v, %v, %d) = %v, walking gives %v", s, d, k, got, want)
				}
			}
		}
	}
}
