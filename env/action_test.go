package env

import (
	"strings"
	"testing"
)

func TestActionParts(t *testing.T) {
	if NumActions != 6912 {
		t.Fatalf("NumActions = %d, want 8*24*36 = 6912", NumActions)
	}
	for a := Action(0); a < NumActions; a++ {
		from, d, k := a.parts()
		if !a.Valid() || newAction(from, d, k) != a || k < 1 || k > maxHeight || d >= numDirections {
			t.Fatalf("action %d: parts %v %v %d", a, from, d, k)
		}
	}
	for _, a := range []Action{-1, NumActions, NumActions + 100} {
		if a.Valid() {
			t.Errorf("Action(%d).Valid()", a)
		}
	}
	if m, err := MoveOf(0); err != nil || m.String() != "a1-1-a2" {
		t.Errorf("MoveOf(0) = %v, %v; want the real move a1-1-a2", m, err)
	}
}

func TestActionSpaceCoversEveryMove(t *testing.T) {
	// Every (from, count, to) that some direction reaches, other than the
	// start square, has exactly one action, and nothing else has one.
	canonical := 0
	for a := Action(0); a < NumActions; a++ {
		if _, err := MoveOf(a); err == nil {
			canonical++
		}
	}
	distinct := 0
	for s := 0; s < NumSquares; s++ {
		for k := 1; k <= maxHeight; k++ {
			seen := map[int]bool{}
			for _, d := range refDirections {
				if to := refWalk(s, d[0], d[1], k); to != s && !seen[to] {
					seen[to] = true
					distinct++
					m := Move{From: Square(s), To: Square(to), Count: uint8(k)}
					a, err := ActionOf(m)
					if err != nil {
						t.Fatalf("ActionOf(%v): %v", m, err)
					}
					if back, err := MoveOf(a); err != nil || back != m {
						t.Fatalf("MoveOf(ActionOf(%v)) = %v, %v", m, back, err)
					}
				}
			}
		}
	}
	if canonical != distinct {
		t.Errorf("%d actions stand for moves, %d distinct moves exist", canonical, distinct)
	}
}

func TestActionErrors(t *testing.T) {
	a1, _ := ParseSquare("a1")
	actionTests := []struct {
		name string
		a    Action
		want string
	}{
		{"negative", -1, "out of range"},
		{"too large", NumActions, "out of range"},
		{"lands home", newAction(a1, North, 10), "lands on its own square"},
		{"second direction to a target", newAction(a1, SouthEast, 2), "is action"},
	}
	for _, tt := range actionTests {
		t.Run("MoveOf "+tt.name, func(t *testing.T) {
			if m, err := MoveOf(tt.a); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("MoveOf(%d) = %v, %v; want an error saying %q", tt.a, m, err, tt.want)
			}
		})
	}
	moveTests := []struct {
		name string
		m    Move
		want string
	}{
		{"count 0", Move{From: 0, To: 6, Count: 0}, "out of range"},
		{"count 25", Move{From: 0, To: 6, Count: 25}, "out of range"},
		{"from off the board", Move{From: 36, To: 6, Count: 1}, "out of range"},
		{"to off the board", Move{From: 0, To: 36, Count: 1}, "out of range"},
		{"unreachable", mustMove(t, "a1-1-c3"), "never reach"},
		{"home", mustMove(t, "c3-4-c3"), "never reach"},
	}
	for _, tt := range moveTests {
		t.Run("ActionOf "+tt.name, func(t *testing.T) {
			if a, err := ActionOf(tt.m); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ActionOf(%v) = %d, %v; want an error saying %q", tt.m, a, err, tt.want)
			}
		})
	}
}
