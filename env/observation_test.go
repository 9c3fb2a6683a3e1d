package env

import (
	"fmt"
	"testing"
)

// cell is one expected observation value.
type cell struct {
	plane int
	sq    string
	value float32
}

// expectedObservation builds an observation from hand-written cells and
// constant planes; every other value is 0.
func expectedObservation(tb testing.TB, cells []cell, constant map[int]float32) []float32 {
	tb.Helper()
	obs := make([]float32, ObservationSize)
	for _, c := range cells {
		s, err := ParseSquare(c.sq)
		if err != nil {
			tb.Fatal(err)
		}
		obs[c.plane*NumSquares+int(s)] = c.value
	}
	for plane, v := range constant {
		for s := range NumSquares {
			obs[plane*NumSquares+s] = v
		}
	}
	return obs
}

func TestObservationEncoding(t *testing.T) {
	if NumPlanes != 21 || ObservationSize != 21*36 {
		t.Fatalf("NumPlanes %d, ObservationSize %d: the pinned layout has 21 planes", NumPlanes, ObservationSize)
	}
	// a6 is Blue's too-tall stack of 7 (top down b b r r b r, then one r
	// below what the planes show one by one); c3 a Red stack of 6, too
	// tall; d4 red on blue; f1 a single blue piece.
	const fen = "bbrrbrr,,,,,/,,,,,/,,,rb,,/,,rrrrbr,,,/,,,,,/,,,,,b "
	// Blue's view of the stacks, the same whatever the rules.
	blueView := []cell{
		{0, "a6", 1}, {2, "a6", 1}, {5, "a6", 1}, {7, "a6", 1}, {8, "a6", 1}, {11, "a6", 1},
		{13, "a6", 1.0 / 12}, {14, "a6", 7.0 / 12},
		{1, "c3", 1}, {3, "c3", 1}, {5, "c3", 1}, {7, "c3", 1}, {8, "c3", 1}, {11, "c3", 1},
		{14, "c3", 0.5}, {16, "c3", 1},
		{1, "d4", 1}, {2, "d4", 1}, {14, "d4", 2.0 / 12},
		{0, "f1", 1}, {14, "f1", 1.0 / 12},
	}
	tests := []struct {
		name     string
		side     string
		rules    Rules
		ply      int
		reps     int
		cells    []cell
		constant map[int]float32
	}{
		{"blue to move", "b", DefaultRules(), 75, 2, append([]cell{{15, "a6", 1}}, blueView...),
			map[int]float32{17: 0.5, 18: 0.25, 20: 1}},
		{"red to move", "r", DefaultRules(), 300, 3, []cell{
			{1, "a6", 1}, {3, "a6", 1}, {4, "a6", 1}, {6, "a6", 1}, {9, "a6", 1}, {10, "a6", 1},
			{12, "a6", 1.0 / 12}, {14, "a6", 7.0 / 12}, {16, "a6", 1},
			{0, "c3", 1}, {2, "c3", 1}, {4, "c3", 1}, {6, "c3", 1}, {9, "c3", 1}, {10, "c3", 1},
			{14, "c3", 0.5}, {15, "c3", 1},
			{0, "d4", 1}, {3, "d4", 1}, {14, "d4", 2.0 / 12},
			{1, "f1", 1}, {14, "f1", 1.0 / 12},
		}, map[int]float32{17: 1, 18: 1, 19: 1, 20: 1}},
		{"rule off, no limits", "b", Rules{}, 75, 2, blueView, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustFEN(t, fen+tt.side)
			p.SetPly(tt.ply)
			got := make([]float32, ObservationSize)
			for i := range got {
				got[i] = -7 // the encoder must overwrite everything
			}
			EncodeObservation(got, &p, tt.rules, tt.reps)
			want := expectedObservation(t, tt.cells, tt.constant)
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("plane %d square %v = %v, want %v", i/NumSquares, Square(i%NumSquares), got[i], want[i])
				}
			}
		})
	}
}

func TestObservationDeepStack(t *testing.T) {
	// 24 pieces in one stack: 18 below the six shown, 9 of each colour.
	p := mustFEN(t, "rb"+fmt.Sprint("rbrbrbrbrbrbrbrbrbrbrb")+",,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,, b")
	obs := make([]float32, ObservationSize)
	EncodeObservation(obs, &p, DefaultRules(), 1)
	a6 := 30
	if own, opp, h := obs[12*NumSquares+a6], obs[13*NumSquares+a6], obs[14*NumSquares+a6]; own != 0.75 || opp != 0.75 || h != 2 {
		t.Errorf("below planes %v %v, height %v: want 0.75 0.75 2", own, opp, h)
	}
}
