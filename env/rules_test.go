package env

import (
	"slices"
	"strings"
	"testing"
)

func TestStartPosition(t *testing.T) {
	p := StartPosition()
	if got := p.FEN(); got != StartFEN {
		t.Errorf("StartPosition().FEN() = %q, want %q", got, StartFEN)
	}
	parsed := mustFEN(t, StartFEN)
	if !parsed.SameAs(&p) || parsed.Hash() != p.Hash() {
		t.Errorf("ParseFEN(StartFEN) differs from StartPosition()")
	}
	if p.SideToMove() != Red || p.Ply() != 0 {
		t.Errorf("start: side %v ply %d, want red to move at ply 0", p.SideToMove(), p.Ply())
	}
	for s := Square(0); s < NumSquares; s++ {
		var want Stack
		switch s.rank() {
		case 5:
			want = NewStack(Red, Red)
		case 0:
			want = NewStack(Blue, Blue)
		}
		if p.At(s) != want {
			t.Errorf("start %v = %q, want %q", s, p.At(s), want)
		}
	}
	for _, c := range []Color{Red, Blue} {
		if n := p.Pieces(c); n != piecesPerSide {
			t.Errorf("start has %d %v pieces, want %d", n, c, piecesPerSide)
		}
	}
	if p.Finished() || p.tooTall() != 0 {
		t.Errorf("start: finished %v, must-move %b", p.Finished(), p.tooTall())
	}
}

func TestSquareNames(t *testing.T) {
	tests := []struct {
		name       string
		sq         Square
		file, rank int
	}{
		{"a1", 0, 0, 0}, {"f1", 5, 5, 0}, {"a2", 6, 0, 1}, {"c4", 20, 2, 3}, {"f6", 35, 5, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if s := newSquare(tt.file, tt.rank); s != tt.sq || s.String() != tt.name || s.file() != tt.file || s.rank() != tt.rank {
				t.Errorf("newSquare(%d, %d) = %d %q (file %d rank %d)", tt.file, tt.rank, s, s, s.file(), s.rank())
			}
			if s, err := ParseSquare(tt.name); err != nil || s != tt.sq {
				t.Errorf("ParseSquare(%q) = %v, %v", tt.name, s, err)
			}
		})
	}
	for _, bad := range []string{"", "a", "a0", "a7", "g1", "A1", "a10", "1a"} {
		t.Run("bad "+bad, func(t *testing.T) {
			if _, err := ParseSquare(bad); err == nil || !strings.Contains(err.Error(), "square") {
				t.Errorf("ParseSquare(%q) error = %v, want a square error", bad, err)
			}
		})
	}
}

func TestStackControlByTopPiece(t *testing.T) {
	tests := []struct {
		name, fen  string
		sq         string
		controller Color
		red, blue  int
		redMoves   bool
	}{
		{"single red", "r,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,,b r", "a6", Red, 1, 0, true},
		{"red on blue", "rb,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,,b r", "a6", Red, 1, 1, true},
		{"blue on reds", "brr,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,,r r", "a6", Blue, 2, 1, false},
		{"blue on mixed", "brbrr,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,,r r", "a6", Blue, 3, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustFEN(t, tt.fen)
			s, _ := ParseSquare(tt.sq)
			st := p.At(s)
			if st.Top() != tt.controller || st.count(Red) != tt.red || st.count(Blue) != tt.blue {
				t.Errorf("%v = %q: top %v, %d red, %d blue", s, st, st.Top(), st.count(Red), st.count(Blue))
			}
			if p.Controlled(tt.controller)&(1<<s) == 0 || p.Controlled(tt.controller.Other())&(1<<s) != 0 {
				t.Errorf("Controlled does not give %v to %v", s, tt.controller)
			}
			moved := slices.ContainsFunc(p.LegalMoves(nil, true), func(m Move) bool { return m.From == s })
			if moved != tt.redMoves {
				t.Errorf("red can move %v: %v, want %v", s, moved, tt.redMoves)
			}
			if !tt.redMoves {
				err := p.CheckMove(Move{From: s, To: s - 6, Count: 1}, true)
				if err == nil || !strings.Contains(err.Error(), "controlled by blue") {
					t.Errorf("moving a blue stack: error %v", err)
				}
			}
		})
	}
}

func TestStackBits(t *testing.T) {
	st := NewStack(Blue, Red, Red, Blue) // top down: b r r b
	if st.Height() != 4 || st.String() != "brrb" || st.Top() != Blue {
		t.Fatalf("NewStack = %q height %d top %v", st, st.Height(), st.Top())
	}
	for d, want := range []Color{Blue, Red, Red, Blue} {
		if st.At(d) != want {
			t.Errorf("At(%d) = %v, want %v", d, st.At(d), want)
		}
	}
	var empty Stack
	if !empty.Empty() || empty.Height() != 0 || empty.String() != "" || st.Empty() {
		t.Errorf("empty stack: %v %d %q; full stack empty %v", empty.Empty(), empty.Height(), empty, st.Empty())
	}
	// Top of an empty stack is meaningless but must not panic.
	_ = empty.Top()
	tall := NewStack(slices.Repeat([]Color{Red, Blue}, piecesPerSide)...)
	if tall.Height() != maxHeight || tall.count(Red) != piecesPerSide || tall.Top() != Red || tall.At(maxHeight-1) != Blue {
		t.Errorf("24-piece stack: %q", tall)
	}
}

func TestLiftTopKeepingOrder(t *testing.T) {
	tests := []struct {
		name, fen, move string
		want            map[string]string // square -> stack after the move
	}{
		{"lift 3 of 4", ",,,,,/,,,,,/,,,,,/,,rbbr,,,/,,,,,/,,,,,b r", "c3-3-c6",
			map[string]string{"c3": "r", "c6": "rbb"}},
		{"lift 1 of 4", ",,,,,/,,,,,/,,,,,/,,rbbr,,,/,,,,,/,,,,,b r", "c3-1-c4",
			map[string]string{"c3": "bbr", "c4": "r"}},
		{"lift whole", ",,,,,/,,,,,/,,,,,/,,rbbr,,,/,,,,,/,,,,,b r", "c3-4-e3",
			map[string]string{"c3": "", "e3": "rbbr"}},
		{"land on top", ",,b,,,/,,,,,/,,,,,/,,rbbr,,,/,,,,,/,,,,,b r", "c3-3-c6",
			map[string]string{"c3": "r", "c6": "rbbb"}},
		{"land on top of a tall stack", ",,,,,/,,,,,/,,brbrb,,,/,,rb,,,/,,,,,/,,,,, r", "c3-1-c4",
			map[string]string{"c3": "b", "c4": "rbrbrb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustFEN(t, tt.fen)
			m := mustMove(t, tt.move)
			if err := p.CheckMove(m, true); err != nil {
				t.Fatal(err)
			}
			p.Apply(m)
			for name, want := range tt.want {
				s, _ := ParseSquare(name)
				if got := p.At(s).String(); got != want {
					t.Errorf("after %v, %v = %q, want %q", m, s, got, want)
				}
			}
		})
	}
}

func TestReflection(t *testing.T) {
	tests := []struct {
		name string
		from string
		dir  Direction
		k    int
		to   string
	}{
		{"c3 N 5 (RULES.md)", "c3", North, 5, "c4"},
		{"c3 W 4 lands home (RULES.md)", "c3", West, 4, "c3"},
		{"a1 SW 3 (RULES.md)", "a1", SouthWest, 3, "d4"},
		{"d5 NE 4 (RULES.md)", "d5", NorthEast, 4, "d3"},
		{"corner a1 SW 1", "a1", SouthWest, 1, "b2"},
		{"corner a6 NW 1", "a6", NorthWest, 1, "b5"},
		{"corner f6 NE 1", "f6", NorthEast, 1, "e5"},
		{"corner f1 SE 1", "f1", SouthEast, 1, "e2"},
		{"corner f6 NE 2", "f6", NorthEast, 2, "d4"},
		{"edge a1 S 1", "a1", South, 1, "a2"},
		{"edge a1 W 1", "a1", West, 1, "b1"},
		{"edge f6 N 2", "f6", North, 2, "f4"},
		{"no edge", "b2", NorthEast, 3, "e5"},
		{"there and back", "a1", North, 10, "a1"},
		{"twice there and back", "c3", NorthEast, 20, "c3"},
		{"eleven", "c3", East, 11, "d3"},
		{"diagonal hits one wall", "e2", NorthEast, 3, "d5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, _ := ParseSquare(tt.from)
			if got := Destination(from, tt.dir, tt.k); got.String() != tt.to {
				t.Errorf("Destination(%v, %v, %d) = %v, want %s", from, tt.dir, tt.k, got, tt.to)
			}
		})
	}
}

// targets returns the squares the moves from s with count k reach.
func targets(moves []Move, s Square, k int) []string {
	var out []string
	for _, m := range moves {
		if m.From == s && int(m.Count) == k {
			out = append(out, m.To.String())
		}
	}
	slices.Sort(out)
	return out
}

func TestMoveTargets(t *testing.T) {
	tests := []struct {
		name, fen, from string
		k               int
		want            []string
	}{
		{"exactly 1 square", ",,,,,/,,,,,/,,,,,/,,rrrr,,,/,,,,,/,,,,,b r", "c3", 1,
			[]string{"b2", "b3", "b4", "c2", "c4", "d2", "d3", "d4"}},
		{"exactly 2 squares", ",,,,,/,,,,,/,,,,,/,,rrrr,,,/,,,,,/,,,,,b r", "c3", 2,
			[]string{"a1", "a3", "a5", "c1", "c5", "e1", "e3", "e5"}},
		// N and S both reach c4, E and W d3, the four diagonals d4.
		{"reflections merge", ",,,,,/,,,,,/,,,,,/,,rrrrr,,,/,,,,,/,,,,,b r", "c3", 5,
			[]string{"c4", "d3", "d4"}},
		// W, S and SW 4 land on c3 itself: not moves.
		{"own square is no move", ",,,,,/,,,,,/,,,,,/,,rrrr,,,/,,,,,/,,,,,b r", "c3", 4,
			[]string{"c5", "e3", "e5"}},
		{"corner duplicates merge", ",,,,,/,,,,,/,,,,,/,,,,,/,,,,,/rr,,,,,b r", "a1", 2,
			[]string{"a3", "c1", "c3"}},
		{"passes over stacks", ",,bb,,,/,,b,,,/,,,,,/,,rrrrr,,,/,,,,,/,,,,,b r", "c3", 5,
			[]string{"c4", "d3", "d4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustFEN(t, tt.fen)
			s, _ := ParseSquare(tt.from)
			moves := p.LegalMoves(nil, true)
			moveSet(t, moves)
			if got := targets(moves, s, tt.k); !slices.Equal(got, tt.want) {
				t.Errorf("%v with %d pieces reaches %v, want %v", s, tt.k, got, tt.want)
			}
		})
	}
}

func TestPassingOverStacks(t *testing.T) {
	// c3 N 5 passes c4 c5 c6 c5 and lands on c4; the stacks on c5 and c6
	// stay as they are, c4's gets the lifted pieces on top.
	p := mustFEN(t, ",,bb,,,/,,rb,,,/,,b,,,/,,rrrrr,,,/,,,,,/,,,,, r")
	p.Apply(mustMove(t, "c3-5-c4"))
	want := ",,bb,,,/,,rb,,,/,,rrrrrb,,,/,,,,,/,,,,,/,,,,, b"
	if got := p.FEN(); got != want {
		t.Errorf("after c3-5-c4: %q, want %q", got, want)
	}
}

func TestOwnSquareIsNoMove(t *testing.T) {
	p := mustFEN(t, ",,,,,/,,,,,/,,,,,/,,rrrr,,,/,,,,,/,,,,,b r")
	c3, _ := ParseSquare("c3")
	for _, m := range p.LegalMoves(nil, true) {
		if m.To == m.From {
			t.Errorf("generated %v, which lands on its own square", m)
		}
	}
	err := p.CheckMove(Move{From: c3, To: c3, Count: 4}, true)
	if err == nil || !strings.Contains(err.Error(), "own square") {
		t.Errorf("CheckMove(c3-4-c3) = %v, want an own-square error", err)
	}
}

func TestCountsTenAndTwentyNeverMove(t *testing.T) {
	// A stack of 22 under Red's control: every count but 10 and 20 moves.
	const fen = "rrrrrrrrrrrbbbbbbbbbbb,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,,b r"
	p := mustFEN(t, fen)
	a6, _ := ParseSquare("a6")
	for _, tt := range []struct {
		name    string
		tooTall bool
		kmin    int
	}{{"too-tall off", false, 1}, {"too-tall on", true, 22 - 4}} {
		t.Run(tt.name, func(t *testing.T) {
			moves := p.LegalMoves(nil, tt.tooTall)
			for k := 1; k <= 22; k++ {
				got := targets(moves, a6, k)
				switch {
				case k < tt.kmin && len(got) != 0:
					t.Errorf("count %d below the too-tall minimum moves to %v", k, got)
				case k >= tt.kmin && (k == 10 || k == 20) && len(got) != 0:
					t.Errorf("count %d moves to %v", k, got)
				case k >= tt.kmin && k != 10 && k != 20 && len(got) == 0:
					t.Errorf("count %d has no move", k)
				}
			}
			for _, k := range []uint8{10, 20} {
				for to := Square(0); to < NumSquares; to++ {
					if p.IsLegal(Move{From: a6, To: to, Count: k}, tt.tooTall) {
						t.Errorf("a6-%d-%v is legal", k, to)
					}
				}
			}
		})
	}
}

func TestTooTallRule(t *testing.T) {
	tests := []struct {
		name    string
		fen     string
		tooTall bool
		from    map[string]int // the squares moves start from -> least count
		tall    int            // stacks taller than 4 the side to move controls
	}{
		{"one stack of 5", "rrrrr,,,,,/,,,,,/,,,,,/,,r,,,/,,,,,/,,,,,b r", true, map[string]int{"a6": 1}, 1},
		{"one stack of 8", "rbrbrbrr,,,,,/,,,,,/,,,,,/,,r,,,/,,,,,/,,,,,b r", true, map[string]int{"a6": 4}, 1},
		{"two tall stacks", "rrrrrr,,,,,/,,,,,/,rbrbr,,,,/,,r,,,/,,,,,/,,,,,bbbbbbb r", true,
			map[string]int{"a6": 2, "b4": 1}, 2},
		{"three tall stacks, blue", "rrrrr,,,,,/,,,,,/,bbbbbr,,,,/,,b,,,/,,,,,/bbrrrr,,,,,bbrrb b", true,
			map[string]int{"b4": 2, "a1": 2, "f1": 1}, 3},
		{"stacks of 4 are not too tall", "rrrr,,,,,/,,,,,/,,,,,/,,r,,,/,,,,,/,,,,,b r", true,
			map[string]int{"a6": 1, "c3": 1}, 0},
		{"opponent's tall stack does not force", "r,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,,bbbbbb r", true,
			map[string]int{"a6": 1}, 0},
		{"rule off", "rrrrrr,,,,,/,,,,,/,rbrbr,,,,/,,r,,,/,,,,,/,,,,,bbbbbbb r", false,
			map[string]int{"a6": 1, "b4": 1, "c3": 1}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustFEN(t, tt.fen)
			if got := bitCount(p.tooTall()); got != tt.tall {
				t.Errorf("tooTall has %d squares, want %d", got, tt.tall)
			}
			least := map[string]int{}
			most := map[string]int{}
			for _, m := range p.LegalMoves(nil, tt.tooTall) {
				s := m.From.String()
				if _, seen := least[s]; !seen || int(m.Count) < least[s] {
					least[s] = int(m.Count)
				}
				most[s] = max(most[s], int(m.Count))
			}
			for s, k := range tt.from {
				sq, _ := ParseSquare(s)
				if least[s] != k {
					t.Errorf("least count from %s = %d, want %d", s, least[s], k)
				}
				if h := p.At(sq).Height(); most[s] != h {
					t.Errorf("most count from %s = %d, want the whole stack, %d", s, most[s], h)
				}
				if k > 1 {
					m := Move{From: sq, To: Destination(sq, North, k-1), Count: uint8(k - 1)}
					if err := p.CheckMove(m, tt.tooTall); err == nil || !strings.Contains(err.Error(), "too-tall") {
						t.Errorf("CheckMove(%v) = %v, want a too-tall error", m, err)
					}
				}
			}
			for s := range least {
				if _, ok := tt.from[s]; !ok {
					t.Errorf("moves from %s, which the rule does not allow", s)
				}
			}
			for sq := Square(0); sq < NumSquares; sq++ {
				_, allowed := tt.from[sq.String()]
				st := p.At(sq)
				if allowed || st.Empty() || st.Top() != p.SideToMove() {
					continue
				}
				m := Move{From: sq, To: Destination(sq, North, 1), Count: 1}
				if err := p.CheckMove(m, tt.tooTall); err == nil || !strings.Contains(err.Error(), "too-tall") {
					t.Errorf("CheckMove(%v) = %v, want a too-tall error", m, err)
				}
			}
		})
	}
}

// bitCount counts the squares in a bit set.
func bitCount(set uint64) int {
	n := 0
	for ; set != 0; set &= set - 1 {
		n++
	}
	return n
}

func TestStartMovesByFile(t *testing.T) {
	tests := []struct {
		name string
		fen  string
	}{
		{"red", StartFEN},
		{"blue", strings.TrimSuffix(StartFEN, "r") + "b"},
		{"blue mirrored", "bb,bb,bb,bb,bb,bb/,,,,,/,,,,,/,,,,,/,,,,,/rr,rr,rr,rr,rr,rr b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustFEN(t, tt.fen)
			moves := p.LegalMoves(nil, true)
			var byFile [BoardSize]int
			for _, m := range moves {
				byFile[m.From.file()]++
			}
			if len(moves) != 48 || byFile != [BoardSize]int{6, 8, 10, 10, 8, 6} {
				t.Errorf("%d moves, by file %v: want 48 as 6 8 10 10 8 6", len(moves), byFile)
			}
		})
	}
}
