package env

import (
	"slices"
	"testing"
)

// perftStart holds the perft figures of RULES.md, depth 0 to 4, too-tall on.
var perftStart = []uint64{1, 48, 2304, 116928, 5930128}

// perft5Start is perft(5) from the start, too-tall on, as measured with this
// engine; TestPerftDepth5 checks it for consistency rather than taking it on
// trust.
const perft5Start = 309812386

func TestPerftStart(t *testing.T) {
	for depth, want := range perftStart {
		t.Run("depth "+itoa(depth), func(t *testing.T) {
			if got := Perft(StartPosition(), depth, true); got != want {
				t.Errorf("Perft(start, %d) = %d, want %d", depth, got, want)
			}
			if depth == 0 {
				return
			}
			if got := divideSum(Divide(StartPosition(), depth, true)); got != want {
				t.Errorf("Divide(start, %d) sums to %d, want %d", depth, got, want)
			}
		})
	}
}

func TestPerftDepth5(t *testing.T) {
	if testing.Short() {
		t.Skip("perft(5) takes a second or two under -race")
	}
	start := StartPosition()
	div := Divide(start, 5, true)
	if got := divideSum(div); got != perft5Start {
		t.Fatalf("Divide(start, 5) sums to %d, want %d", got, perft5Start)
	}
	// The start position is its own mirror image across the files, so a
	// move and its mirror image must have the same subtree count: an error
	// in the count would have to be mirror-symmetric to go unnoticed.
	nodes := map[Move]uint64{}
	for _, d := range div {
		nodes[d.Move] = d.Nodes
	}
	mirror := Symmetry(1)
	for _, d := range div {
		if other := nodes[mirror.Move(d.Move)]; other != d.Nodes {
			t.Errorf("%v: %d sequences, its mirror image %v: %d", d.Move, d.Nodes, mirror.Move(d.Move), other)
		}
	}
}

func divideSum(div []DivideCount) uint64 {
	var n uint64
	for _, d := range div {
		n += d.Nodes
	}
	return n
}

// itoa spells a small number for a subtest name.
func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

func TestDivide(t *testing.T) {
	for i, smp := range samples(4, 4, 60, 40) {
		p := smp.pos
		moves := p.LegalMoves(nil, smp.tooTall)
		div := Divide(p, 2, smp.tooTall)
		if len(div) != len(moves) {
			t.Fatalf("sample %d %q: %d divide lines for %d moves", i, p.FEN(), len(div), len(moves))
		}
		for j, d := range div {
			child := p
			child.Apply(moves[j])
			if d.Move != moves[j] || d.Nodes != uint64(child.CountMoves(smp.tooTall)) {
				t.Fatalf("sample %d %q: line %d is %v %d, want %v %d", i, p.FEN(), j, d.Move, d.Nodes, moves[j], child.CountMoves(smp.tooTall))
			}
		}
		if got, want := divideSum(div), Perft(p, 2, smp.tooTall); got != want {
			t.Fatalf("sample %d %q: divide sums to %d, perft is %d", i, p.FEN(), got, want)
		}
	}
	if div := Divide(StartPosition(), 0, true); div != nil {
		t.Errorf("Divide at depth 0 = %v", div)
	}
}

func TestPerftMatchesReference(t *testing.T) {
	t.Run("start too-tall off", func(t *testing.T) {
		for depth := 1; depth <= 3; depth++ {
			if got, want := Perft(StartPosition(), depth, false), refFromFEN(StartFEN).perft(depth, false); got != want {
				t.Errorf("Perft(start, %d, off) = %d, reference %d", depth, got, want)
			}
		}
	})
	t.Run("random positions", func(t *testing.T) {
		for i, smp := range samples(5, 6, 80, 60) {
			if i%4 != 0 {
				continue
			}
			// The reference model is slow: go to depth 3 only where the
			// tree is small.
			depth := 3
			if Perft(smp.pos, depth, smp.tooTall) > 100000 {
				depth = 2
			}
			fen := smp.pos.FEN()
			if got, want := Perft(smp.pos, depth, smp.tooTall), refFromFEN(fen).perft(depth, smp.tooTall); got != want {
				t.Fatalf("Perft(%q, %d, %v) = %d, reference %d", fen, depth, smp.tooTall, got, want)
			}
		}
	})
}

func TestCountMovesMatchesLegalMoves(t *testing.T) {
	for i, smp := range samples(6, 20, 200, 2000) {
		p := smp.pos
		for _, tooTall := range []bool{true, false} {
			if n, moves := p.CountMoves(tooTall), p.LegalMoves(nil, tooTall); n != len(moves) {
				t.Fatalf("sample %d %q too-tall %v: CountMoves %d, LegalMoves %d", i, p.FEN(), tooTall, n, len(moves))
			}
		}
	}
}

func TestMovesToMatchesLegalMoves(t *testing.T) {
	for i, smp := range samples(7, 20, 200, 2000) {
		p := smp.pos
		for _, tooTall := range []bool{true, false} {
			legal := p.LegalMoves(nil, tooTall)
			for sq := Square(0); sq < NumSquares; sq++ {
				want := slices.DeleteFunc(slices.Clone(legal), func(m Move) bool { return m.To != sq })
				if got := p.MovesTo(nil, sq, tooTall); !slices.Equal(got, want) {
					t.Fatalf("sample %d %q too-tall %v: MovesTo(%v) = %v, the legal moves to it %v", i, p.FEN(), tooTall, sq, got, want)
				}
			}
		}
	}
}
