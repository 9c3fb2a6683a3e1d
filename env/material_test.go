package env

import "testing"

func TestMaterial(t *testing.T) {
	start := StartPosition()
	if m := start.Material(Red); m != 0 {
		t.Errorf("start: %d, want 0", m)
	}
	rng := newRNG(3)
	for i := range 200 {
		p := randomPosition(rng)
		if r, b := p.Material(Red), p.Material(Blue); r != -b {
			t.Errorf("position %d (%s): red %d, blue %d: want opposite scores", i, p.FEN(), r, b)
		}
	}
	cases := []struct {
		name, fen string
		want      int
	}{
		{"red has won", ",,,,,/,,,,,/,,,,,/,,,,,/,,r,,,/rb,,,,, b", WinMaterial},
		{"blue has won", ",,,,,/,,,,,/,,,,,/,,,,,/,,,,,/br,,,,, b", -WinMaterial},
		{"two red pieces under blue", ",,,,,/,,,,,/,,,,,/,,,,,/,,r,,,/brr,,,,, b", PieceMaterial*(1-3) + StackMaterial*(1-1)},
		{"more stacks", ",,,,,/,,,,,/,,,,,/,,,,,/,,bb,,,/r,r,,,, b", 0 + StackMaterial},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := mustFEN(t, tc.fen)
			if m := p.Material(Red); m != tc.want {
				t.Errorf("got %d, want %d", m, tc.want)
			}
		})
	}
}

func TestMaterialUpTo(t *testing.T) {
	// Red: a tower of 9 (5 red, 4 blue) and a single; Blue: two stacks of 2.
	tower := ",,,,,/,,,,,/,rrrrrbbbb,,,,/,,,,,/,,,,r,/bb,bb,,,, b"
	cases := []struct {
		name   string
		fen    string
		height int
		want   int
	}{
		{"every piece", tower, maxHeight, PieceMaterial*(10-4) + StackMaterial*(2-2)},
		{"the tower as 4", tower, 4, PieceMaterial*(5-4) + StackMaterial*(2-2)},
		{"stacks alone", tower, 1, PieceMaterial*(2-2) + StackMaterial*(2-2)},
		{"a win stays a win", ",,,,,/,,,,,/,,,,,/,,,,,/,,r,,,/rrrrrrb,,,,, b", 4, WinMaterial},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := mustFEN(t, tc.fen)
			if m := p.MaterialUpTo(Red, tc.height); m != tc.want {
				t.Errorf("got %d, want %d", m, tc.want)
			}
			if r, b := p.MaterialUpTo(Red, tc.height), p.MaterialUpTo(Blue, tc.height); r != -b {
				t.Errorf("red %d, blue %d: want opposite scores", r, b)
			}
		})
	}
	rng := newRNG(4)
	for i := range 200 {
		p := randomPosition(rng)
		if got, want := p.MaterialUpTo(Red, maxHeight), p.Material(Red); got != want {
			t.Errorf("position %d (%s): up to %d pieces %d, Material %d", i, p.FEN(), maxHeight, got, want)
		}
	}
}

func TestMaterialValue(t *testing.T) {
	cases := []struct {
		score  int
		lo, hi float64
	}{
		{0, 0, 0},
		{50, 0.76, 0.77},
		{-50, -0.77, -0.76},
		{WinMaterial, 0.999, 1},
	}
	for _, tc := range cases {
		if v := MaterialValue(tc.score); v < tc.lo || v > tc.hi {
			t.Errorf("MaterialValue(%d) = %v: want %v to %v", tc.score, v, tc.lo, tc.hi)
		}
	}
}
