package env

import (
	"strings"
	"testing"
)

func TestParseFENErrors(t *testing.T) {
	tests := []struct {
		name string
		fen  string
		want []string // the error must contain each
	}{
		{"empty", "", []string{"missing side to move"}},
		{"missing side", "rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb", []string{"missing side to move"}},
		{"unknown side", "rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb x", []string{"side to move", `"x"`}},
		{"side word", "rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb red", []string{"side to move", `"red"`}},
		{"upper-case side", "rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb R", []string{"side to move", `"R"`}},
		{"five ranks", "rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb r", []string{"5 ranks", "want 6"}},
		{"seven ranks", "rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb r", []string{"7 ranks", "want 6"}},
		{"five squares on rank 6", "rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb r", []string{"rank 6", "5 squares"}},
		{"seven squares on rank 3", "rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,,/,,,,,/bb,bb,bb,bb,bb,bb r", []string{"rank 3", "7 squares"}},
		{"bad character", "rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,rx,,,/,,,,,/bb,bb,bb,bb,bb,bb r", []string{"square c3", "character 2", "'x'"}},
		{"upper case piece", "rr,rr,rr,rr,rr,rR/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb r", []string{"square f6", "character 2", "'R'"}},
		{"digit", "2,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb r", []string{"square a6", "character 1", "'2'"}},
		{"13 red", "rrr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb r", []string{"13 red pieces", "at most 12"}},
		{"13 blue", "rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bbb,bb,bb,bb,bb,bb r", []string{"13 blue pieces", "at most 12"}},
		{"space inside the board", "rr,rr,rr, rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb r", []string{"square d6", "character 1", "' '"}},
		{"two spaces before the side", "rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb  r", []string{"square f1", "' '"}},
		{"two sides", "rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb r b", []string{"square f1", "' '"}},
		{"side only", "r", []string{"missing side to move"}},
		{"25 on a square", strings.Repeat("r", 25) + ",,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,, r", []string{"square a6", "25 pieces"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseFEN(tt.fen)
			if err == nil {
				t.Fatalf("ParseFEN accepted it: %q", p.FEN())
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestParseFENAccepts(t *testing.T) {
	tests := []struct {
		name, fen string
		red, blue int
		side      Color
		canonical string // FEN() of the result
	}{
		{"start", StartFEN, 12, 12, Red, StartFEN},
		{"surrounding space", "  " + StartFEN + "\n", 12, 12, Red, StartFEN},
		{"fewer than 12", "r,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,,b b", 1, 1, Blue, "r,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,,b b"},
		{"empty board", ",,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,, r", 0, 0, Red, ",,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,, r"},
		{"all 24 in one stack", strings.Repeat("rb", 12) + ",,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,, b", 12, 12, Blue,
			strings.Repeat("rb", 12) + ",,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,, b"},
		{"mixed", "brr,,,,,/,rb,,,,/,,,,,/,,bbbbr,,,/,,,,,/r,,,,,rrb r", 7, 7, Red,
			"brr,,,,,/,rb,,,,/,,,,,/,,bbbbr,,,/,,,,,/r,,,,,rrb r"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustFEN(t, tt.fen)
			if p.Pieces(Red) != tt.red || p.Pieces(Blue) != tt.blue || p.SideToMove() != tt.side || p.Ply() != 0 {
				t.Errorf("%d red, %d blue, %v to move, ply %d", p.Pieces(Red), p.Pieces(Blue), p.SideToMove(), p.Ply())
			}
			if got := p.FEN(); got != tt.canonical || p.String() != tt.canonical {
				t.Errorf("FEN() = %q, want %q", got, tt.canonical)
			}
			if p.Hash() != p.computeHash() || p.control != p.computeControl() {
				t.Error("hash or control not set")
			}
		})
	}
}

func TestNewPosition(t *testing.T) {
	start := StartPosition()
	var stacks [NumSquares]Stack
	for s := Square(0); s < NumSquares; s++ {
		stacks[s] = start.At(s)
	}
	p, err := NewPosition(stacks, Red)
	if err != nil || p != start {
		t.Errorf("NewPosition(start stacks) = %q, %v", p.FEN(), err)
	}
	stacks[20] = NewStack(Red)
	if _, err := NewPosition(stacks, Red); err == nil || !strings.Contains(err.Error(), "13 red") {
		t.Errorf("NewPosition with 13 red: %v", err)
	}
}

func TestParseMove(t *testing.T) {
	good := []struct {
		text string
		want Move
	}{
		{"a6-2-a4", Move{From: 30, To: 18, Count: 2}},
		{"f1-24-a1", Move{From: 5, To: 0, Count: 24}},
		{"c3-10-c3", Move{From: 14, To: 14, Count: 10}}, // the form is fine; CheckMove rejects it
	}
	for _, tt := range good {
		t.Run(tt.text, func(t *testing.T) {
			m, err := ParseMove(tt.text)
			if err != nil || m != tt.want || m.String() != tt.text {
				t.Errorf("ParseMove = %v (%q), %v; want %v", m, m, err, tt.want)
			}
		})
	}
	bad := []struct {
		text, want string
	}{
		{"", "want <from>-<count>-<to>"},
		{"a6-a4", "want <from>-<count>-<to>"},
		{"a6-2-a4-1", "want <from>-<count>-<to>"},
		{"a6--2-a4", "want <from>-<count>-<to>"},
		{"g6-2-a4", "from"},
		{"a6-2-a7", "to"},
		{"a6-0-a4", "count"},
		{"a6-25-a4", "count"},
		{"a6-02-a4", "count"},
		{"a6-+2-a4", "count"},
		{"a6- 2-a4", "count"},
		{"a6-x-a4", "count"},
		{"a6--a4", "count"},
		{"a6-99999999999999999999-a4", "count"},
	}
	for _, tt := range bad {
		t.Run("bad "+tt.text, func(t *testing.T) {
			m, err := ParseMove(tt.text)
			if err == nil {
				t.Fatalf("ParseMove accepted it as %v", m)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

func TestCheckMoveReasons(t *testing.T) {
	p := mustFEN(t, "rrrrr,,,,,/,,,,,/,b,,,,/,,rbrb,,,/,,,,,/,,,,,b r")
	tests := []struct {
		name    string
		move    Move
		tooTall bool
		want    string // "" for legal
	}{
		{"legal", mustMove(t, "a6-2-a4"), true, ""},
		{"no such square", Move{From: 36, To: 0, Count: 1}, true, "no such square"},
		{"no such target", Move{From: 30, To: 99, Count: 1}, true, "no such square"},
		{"empty", mustMove(t, "d4-1-d5"), true, "empty"},
		{"opponent's", mustMove(t, "b4-1-b5"), true, "controlled by blue"},
		{"count 0", Move{From: 30, To: 24, Count: 0}, true, "count must be 1 to 5"},
		{"count above height", mustMove(t, "a6-6-a1"), true, "count must be 1 to 5"},
		{"own square", mustMove(t, "c3-4-c3"), false, "own square"},
		{"too-tall", mustMove(t, "c3-1-c4"), true, "too-tall"},
		{"too-tall off", mustMove(t, "c3-1-c4"), false, ""},
		{"unreachable", mustMove(t, "a6-1-c4"), true, "cannot reach"},
		{"lifting 4 of 5", mustMove(t, "a6-4-a2"), true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := p.CheckMove(tt.move, tt.tooTall)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckMove(%v) = %v, want legal", tt.move, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("CheckMove(%v) = %v, want an error saying %q", tt.move, err, tt.want)
			}
			if p.IsLegal(tt.move, tt.tooTall) != (err == nil) {
				t.Errorf("IsLegal disagrees with CheckMove")
			}
		})
	}
}
