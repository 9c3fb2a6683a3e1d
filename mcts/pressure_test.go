package mcts

import (
	"math"
	"math/bits"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/internal/testgames"
)

// netFEN has Red far ahead, with a pair on c2 and Blue's last two
// singletons on a6 and c6: c2-2-c4 attacks both of them, c2-2-e2 neither.
const netFEN = "b,,b,,,/,,,,,/,,,,,/,,,,,/,,rr,,,/,,,,,rrrr r"

func after(t *testing.T, fen, move string) env.Position {
	t.Helper()
	pos := mustFEN(t, fen)
	pos.Apply(mustMoves(t, move)[0])
	return pos
}

func TestPressure(t *testing.T) {
	for _, tc := range []struct {
		name, fen, move string
		want            float64
	}{
		// Blue's 8 moves land on a5, b5, b6 (from a6) and b6, d6, b5, c5,
		// d5 (from c6); Red's four on f1 lands on b5 among others.
		// From c4 the pair lands on a6 and c6 (both stacks) and on b5, c5
		// and d5: (1 + 4/8) / 2.
		{"a pair two squares off attacks both singletons", netFEN, "c2-2-c4", 0.75},
		// Only f1's four reaches b5: (0 + 2/8) / 2.
		{"a pair that reaches neither singleton adds nothing", netFEN, "c2-2-e2", 0.125},
		{"a single three ranks off adds nothing", netFEN, "c2-1-b3", 0.125},
		// Red's pair on b4 lands on a5, b5 and b6, all of the moves of
		// Blue's single on a6, but not on a6: (0 + 3/3) / 2.
		{"every move of the defender is covered", "b,,,,,/,,,,,/,rr,,,,/,,,,,/,,,,,/,,,,,rrrr r", "f1-1-e1", 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pos := after(t, tc.fen, tc.move)
			if got := pressure(&pos, env.Red, true); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("pressure after %s = %v, want %v", tc.move, got, tc.want)
			}
		})
	}
}

func TestPressureKeepsTheTooTallRule(t *testing.T) {
	// Red's six on a1 must lift 2 to 6 pieces under the rule, and none of
	// those counts lands on b2, next to it: of the 8 moves of Blue's
	// single there, those to c1, a3 and c3 land on attacked squares.
	// Without the rule a1 lands on b2, a2 and b1 too.
	pos := mustFEN(t, ",,,,,/,,,,,/,,,,,/,,,,,/,b,,,,/rrrrrr,,,,, r")
	for _, tc := range []struct {
		name    string
		tooTall bool
		want    float64
	}{
		{"with the rule the tall stack does not attack its neighbour", true, (0 + 3.0/8) / 2},
		{"without the rule it does", false, (1 + 5.0/8) / 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pressure(&pos, env.Red, tc.tooTall); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("pressure = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestProgress(t *testing.T) {
	// Red's pair on c4 can take c6 (or a6); no quiet move, whatever its
	// pressure, makes as much progress as a capture.
	const fen = "b,,b,,,/,,,,,/,,rr,,,/,,,,,/,,,,,/,,,,,rrrr r"
	taken := after(t, fen, "c4-2-c6")
	capture := progress(&taken, env.Red, true)
	t.Run("a capture counts a whole stack", func(t *testing.T) {
		if capture < 5.0/6 {
			t.Errorf("progress after c4-2-c6 = %v, want 5/6 or more (one stack of Blue's two taken)", capture)
		}
	})
	t.Run("no quiet move beats a capture", func(t *testing.T) {
		pos := mustFEN(t, fen)
		for _, m := range pos.LegalMoves(nil, true) {
			p := pos
			p.Apply(m)
			if bits.OnesCount64(p.Controlled(env.Blue)) < 2 {
				continue
			}
			if got := progress(&p, env.Red, true); got > capture {
				t.Errorf("progress after %v = %v, above the capture's %v", m, got, capture)
			}
		}
	})
	t.Run("a defender of many stacks counts nothing", func(t *testing.T) {
		pos := env.StartPosition()
		if got := progress(&pos, env.Red, true); got != 0 {
			t.Errorf("progress at the start = %v, want 0", got)
		}
	})
}

func TestPressureValue(t *testing.T) {
	netted := after(t, netFEN, "c2-2-c4") // Blue to move, Red ahead
	free := after(t, netFEN, "c2-2-e2")
	level := env.StartPosition()
	t.Run("the side behind values the closed net lower", func(t *testing.T) {
		if a, b := pressureValue(0.5, &netted, 0.5, true), pressureValue(0.5, &free, 0.5, true); !(a < b) {
			t.Errorf("Blue's value with both stacks attacked %v, want below %v", a, b)
		}
	})
	t.Run("the side ahead values the closed net higher", func(t *testing.T) {
		// The same positions with Red to move: Red is the side ahead.
		n := mustFEN(t, netted.FEN()[:len(netted.FEN())-1]+"r")
		f := mustFEN(t, free.FEN()[:len(free.FEN())-1]+"r")
		if a, b := pressureValue(0.5, &n, 0.5, true), pressureValue(0.5, &f, 0.5, true); !(a > b) {
			t.Errorf("Red's value with both stacks attacked %v, want above %v", a, b)
		}
	})
	t.Run("level material leaves the value alone", func(t *testing.T) {
		if got := pressureValue(0.25, &level, 1, true); got != 0.25 {
			t.Errorf("value at the start = %v, want 0.25", got)
		}
	})
}

// TestPressureSteersTheSearch: with a network that says nothing (uniform
// priors, value 0) no quiet move differs from another, and the pressure
// term makes the search close the net on Blue's two singletons.
func TestPressureSteersTheSearch(t *testing.T) {
	for _, tc := range []struct {
		name     string
		w        float64
		attacked int // Blue stacks that the chosen move attacks
	}{
		{"without the term the move attacks neither singleton", 0, 0},
		{"with the term the move attacks both singletons", 0.5, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := treeOnlyConfig()
			cfg.Simulations = 400
			cfg.PressureUtility = tc.w
			d, err := newPUCT(t, UniformEvaluator{}, cfg, 1).Choose(testgames.GameFromFEN(t, netFEN))
			if err != nil {
				t.Fatal(err)
			}
			pos := mustFEN(t, netFEN)
			pos.Apply(d.Move)
			blue := pos.Controlled(env.Blue)
			if got := bits.OnesCount64(blue & attacks(&pos, env.Red, true)); got != tc.attacked {
				t.Errorf("%v attacks %d Blue stacks, want %d", d.Move, got, tc.attacked)
			}
		})
	}
}

// BenchmarkPressureValue measures the progress term of one leaf in
// endings of the games drawn at the move limit against alphabeta:depth=4,
// where it is computed in full.
func BenchmarkPressureValue(b *testing.B) {
	var ends []env.Position
	for _, fen := range []string{
		netFEN,
		",,rbb,rbb,,rbb/b,,rr,r,r,rb/,,r,r,r,/,,,r,,/b,b,,,,/,,b,,b, r",
		"rbb,,rbb,rbb,,/,rb,rr,r,,/,r,r,r,,/,,r,r,,/,,b,,,b/,,,b,b,b b",
	} {
		pos, err := env.ParseFEN(fen)
		if err != nil {
			b.Fatal(err)
		}
		ends = append(ends, pos)
	}
	b.ResetTimer()
	var sink float32
	for i := 0; i < b.N; i++ {
		sink += pressureValue(0.5, &ends[i%len(ends)], 0.1, true)
	}
	_ = sink
}
