package env

import (
	"slices"
	"testing"
)

func TestSymmetryNamesAndSquares(t *testing.T) {
	tests := []struct {
		y      Symmetry
		name   string
		a1, b1 string // images of a1 and b1
	}{
		{0, "identity", "a1", "b1"},
		{1, "mirror-files", "f1", "e1"},
		{2, "mirror-ranks", "a6", "b6"},
		{3, "rotate-180", "f6", "e6"},
		{4, "transpose", "a1", "a2"},
		{5, "rotate-90", "f1", "f2"},
		{6, "rotate-270", "a6", "a5"},
		{7, "anti-transpose", "f6", "f5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.y.String() != tt.name {
				t.Errorf("String() = %q", tt.y)
			}
			a1, _ := ParseSquare("a1")
			b1, _ := ParseSquare("b1")
			if got := tt.y.Square(a1).String(); got != tt.a1 {
				t.Errorf("a1 -> %s, want %s", got, tt.a1)
			}
			if got := tt.y.Square(b1).String(); got != tt.b1 {
				t.Errorf("b1 -> %s, want %s", got, tt.b1)
			}
		})
	}
	if got := Symmetry(8).String(); got != "Symmetry(8)" {
		t.Errorf("Symmetry(8).String() = %q", got)
	}
}

func TestSymmetryGroupLaws(t *testing.T) {
	for y := Symmetry(0); y < NumSymmetries; y++ {
		t.Run(y.String(), func(t *testing.T) {
			if y.Then(y.Inverse()) != Identity || y.Inverse().Then(y) != Identity {
				t.Errorf("inverse %v does not undo it", y.Inverse())
			}
			if Identity.Then(y) != y || y.Then(Identity) != y {
				t.Error("identity is not neutral")
			}
			for z := Symmetry(0); z < NumSymmetries; z++ {
				yz := y.Then(z)
				for s := Square(0); s < NumSquares; s++ {
					if yz.Square(s) != z.Square(y.Square(s)) {
						t.Fatalf("%v then %v = %v, but squares disagree at %v", y, z, yz, s)
					}
				}
				for d := Direction(0); d < numDirections; d++ {
					if yz.Direction(d) != z.Direction(y.Direction(d)) {
						t.Fatalf("%v then %v = %v, but directions disagree at %v", y, z, yz, d)
					}
				}
				for a := Action(0); a < NumActions; a++ {
					if yz.Action(a) != z.Action(y.Action(a)) {
						t.Fatalf("%v then %v = %v, but actions disagree at %d", y, z, yz, a)
					}
				}
			}
			if !isPermutation(NumSquares, func(i int) int { return int(y.Square(Square(i))) }) {
				t.Error("square map is not a permutation")
			}
			if !isPermutation(numDirections, func(i int) int { return int(y.Direction(Direction(i))) }) {
				t.Error("direction map is not a permutation")
			}
			if !isPermutation(NumActions, func(i int) int { return int(y.Action(Action(i))) }) {
				t.Error("action map is not a permutation")
			}
		})
	}
}

func isPermutation(n int, f func(int) int) bool {
	seen := make([]bool, n)
	for i := range n {
		j := f(i)
		if j < 0 || j >= n || seen[j] {
			return false
		}
		seen[j] = true
	}
	return true
}

func TestSymmetryCommutesWithGeometry(t *testing.T) {
	for y := Symmetry(0); y < NumSymmetries; y++ {
		for s := Square(0); s < NumSquares; s++ {
			for d := Direction(0); d < numDirections; d++ {
				for k := 1; k <= maxHeight; k++ {
					if got, want := Destination(y.Square(s), y.Direction(d), k), y.Square(Destination(s, d, k)); got != want {
						t.Fatalf("%v: %v %v %d lands on %v, mapped %v", y, s, d, k, want, got)
					}
				}
			}
		}
		for a := Action(0); a < NumActions; a++ {
			m, err := MoveOf(a)
			if err != nil {
				if y.Action(a) != a {
					t.Fatalf("%v moves never-legal action %d to %d", y, a, y.Action(a))
				}
				continue
			}
			if got, want := y.Action(a), mustAction(t, y.Move(m)); got != want {
				t.Fatalf("%v: Action(%d) = %d, ActionOf(%v) = %d", y, a, got, y.Move(m), want)
			}
		}
	}
}

func TestSymmetryEquivariance(t *testing.T) {
	rules := DefaultRules()
	obs := make([]float32, ObservationSize)
	mapped := make([]float32, ObservationSize)
	want := make([]float32, ObservationSize)
	mask := make([]bool, NumActions)
	mappedMask := make([]bool, NumActions)
	policy := make([]float32, NumActions)
	mappedPolicy := make([]float32, NumActions)
	for i, smp := range samples(10, 6, 150, 300) {
		if i%3 != 0 {
			continue
		}
		p := smp.pos
		p.SetPly(i % 300)
		rules.TooTall = smp.tooTall
		reps := 1 + i%3
		moves := p.LegalMoves(nil, smp.tooTall)
		EncodeObservation(obs, &p, rules, reps)
		p.legalMask(mask, smp.tooTall)
		for a := range policy {
			policy[a] = float32(a)
		}
		for y := Symmetry(0); y < NumSymmetries; y++ {
			q := y.Position(p)
			fail := func(format string, args ...any) {
				t.Helper()
				t.Fatalf("sample %d %q, %v: "+format, append([]any{i, p.FEN(), y}, args...)...)
			}
			if q.SideToMove() != p.SideToMove() || q.Ply() != p.Ply() || q.Hash() != q.computeHash() || q.control != q.computeControl() {
				fail("side %v ply %d hash ok %v control ok %v", q.SideToMove(), q.Ply(), q.Hash() == q.computeHash(), q.control == q.computeControl())
			}
			if back := y.Inverse().Position(q); back != p {
				fail("inverse gives %q", back.FEN())
			}
			if StatusOf(&q, rules, reps) != StatusOf(&p, rules, reps) || q.tooTall() != mapSquares(y, p.tooTall()) {
				fail("status %v vs %v", StatusOf(&q, rules, reps), StatusOf(&p, rules, reps))
			}
			var image []Move
			for _, m := range moves {
				image = append(image, y.Move(m))
				if y.Action(mustAction(t, m)) != mustAction(t, y.Move(m)) {
					fail("action of %v maps to %d, mapped move has %d", m, y.Action(mustAction(t, m)), mustAction(t, y.Move(m)))
				}
			}
			got := q.LegalMoves(nil, smp.tooTall)
			if !slices.Equal(sortedMoves(got), sortedMoves(image)) {
				fail("legal moves %v, mapped %v", got, image)
			}
			y.Observation(mapped, obs)
			EncodeObservation(want, &q, rules, reps)
			if !slices.Equal(mapped, want) {
				fail("mapped observation differs from the observation of the mapped position")
			}
			q.legalMask(mappedMask, smp.tooTall)
			y.Policy(mappedPolicy, policy)
			for a := range mask {
				if mappedMask[y.Action(Action(a))] != mask[a] {
					fail("mask of action %d does not map", a)
				}
				if mappedPolicy[y.Action(Action(a))] != policy[a] {
					fail("policy of action %d does not map", a)
				}
			}
		}
	}
}

func TestSymmetryPreservesPerft(t *testing.T) {
	for i, smp := range samples(11, 2, 60, 20) {
		if i%10 != 0 {
			continue
		}
		want := Perft(smp.pos, 3, smp.tooTall)
		for y := Symmetry(1); y < NumSymmetries; y++ {
			if got := Perft(y.Position(smp.pos), 3, smp.tooTall); got != want {
				t.Fatalf("%q under %v: perft(3) %d, want %d", smp.pos.FEN(), y, got, want)
			}
		}
	}
}

// mapSquares maps a bit set of squares.
func mapSquares(y Symmetry, set uint64) uint64 {
	var out uint64
	for s := Square(0); s < NumSquares; s++ {
		if set&(1<<s) != 0 {
			out |= 1 << y.Square(s)
		}
	}
	return out
}

func sortedMoves(moves []Move) []Move {
	out := slices.Clone(moves)
	slices.SortFunc(out, func(a, b Move) int {
		return int(a.From)<<16 | int(a.Count)<<8 | int(a.To) - (int(b.From)<<16 | int(b.Count)<<8 | int(b.To))
	})
	return out
}
