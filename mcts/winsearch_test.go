package mcts

import (
	"math"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/internal/testgames"
)

func TestPlayerPlaysTheShortestWin(t *testing.T) {
	// The root's win search decides a won endgame whatever the evaluator
	// says; with it off, a uniform evaluator's tree does not find the
	// seven-ply win. A search of fewer simulations gets its share of the
	// positions, which is too few here.
	g := testgames.GameFromFEN(t, testgames.DeepWinFEN)
	for _, gumbel := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.Gumbel, cfg.Simulations = gumbel, 64
		p := newPUCT(t, UniformEvaluator{}, cfg, 1)
		d, err := p.Choose(g)
		if err != nil {
			t.Fatal(err)
		}
		if d.Value != 1 || d.Depth != 7 || d.Score != env.WinMaterial-7 || len(d.PV) != 7 || d.Move != d.PV[0] || d.Target[mustAction(t, d.Move)] != 1 {
			t.Errorf("gumbel %v: %v value %v depth %d score %d pv %v: want a proven win of 7 plies as the whole target", gumbel, d.Move, d.Value, d.Depth, d.Score, d.PV)
		}
		pos := g.Position()
		testgames.CheckWin(t, pos, d.PV)
		if d, err := p.ChooseSimulations(g, 1); err != nil || d.Value == 1 {
			t.Errorf("gumbel %v, 1 simulation: value %v (%v): want no proof with 1/64 of the positions", gumbel, d.Value, err)
		}
	}
}

func TestMaterialShare(t *testing.T) {
	tower := map[string]string{"a6": "rrrrrrrrrrbb", "c3": "rb", "a1": "b"}
	cases := []struct {
		name      string
		fen       string
		maxPieces int
		want      float32
	}{
		{"start", testgames.FEN(map[string]string{"a6": "rr", "a1": "bb"}, 'r'), 0, 0},
		{"red ahead, red to move", testgames.FEN(map[string]string{"a6": "rrr", "a1": "b"}, 'r'), 0, float32(30+5-10-5) / float32(40+10)},
		{"red ahead, blue to move", testgames.FEN(map[string]string{"a6": "rrr", "a1": "b"}, 'b'), 0, -float32(30+5-10-5) / float32(40+10)},
		{"pieces count for the stack's owner", testgames.FEN(map[string]string{"a6": "rbb", "a1": "b"}, 'r'), 0, float32(30+5-10-5) / float32(40+10)},
		{"a tower whole", testgames.FEN(tower, 'r'), 0, float32(120+5+20+5-10-5) / float32(120+5+20+5+10+5)},
		{"a tower capped", testgames.FEN(tower, 'r'), 8, float32(80+5+20+5-10-5) / float32(80+5+20+5+10+5)},
		{"a cap above every stack", testgames.FEN(tower, 'b'), 12, -float32(120+5+20+5-10-5) / float32(120+5+20+5+10+5)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pos := testgames.Position(t, tc.fen)
			if got := materialShare(&pos, tc.maxPieces); math.Abs(float64(got-tc.want)) > 1e-6 {
				t.Errorf("materialShare(%d) = %v, want %v", tc.maxPieces, got, tc.want)
			}
		})
	}
}

// The tower cap holds only for the searches of positions where a stack
// taller than it stands, of either side.
func TestTowerCapOnlyWithATower(t *testing.T) {
	for _, tc := range []struct {
		name  string
		board map[string]string
		want  int
	}{
		{"red's tower", map[string]string{"a6": "rrrrrrrrrrbb", "c3": "rb", "a1": "b"}, 8},
		{"blue's tower", map[string]string{"a6": "bbbbbbbbbrrr", "c3": "rb", "a1": "r"}, 8},
		{"a stack of 8", map[string]string{"a6": "rrrrrrrr", "c3": "rb", "a1": "bbbb"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := treeOnlyConfig()
			cfg.Simulations, cfg.MaterialUtility, cfg.TowerCap = 16, 0.3, 8
			p := newPUCT(t, UniformEvaluator{}, cfg, 1)
			if _, err := p.Choose(testgames.GameFromFEN(t, testgames.FEN(tc.board, 'r'))); err != nil {
				t.Fatal(err)
			}
			if p.s.materialCap != tc.want {
				t.Errorf("the search's material cap is %d, want %d", p.s.materialCap, tc.want)
			}
		})
	}
}

func TestMaterialUtilityTakesStacks(t *testing.T) {
	// With an evaluator that values every position the same, only the
	// material term tells the moves apart: the search takes the tallest
	// stack it can.
	g := testgames.GameFromFEN(t, testgames.FEN(map[string]string{"c3": "rr", "a1": "r", "c5": "bbbb", "f6": "b", "f1": "b"}, 'r'))
	capture := mustMoves(t, "c3-2-c5")[0]
	for _, gumbel := range []bool{false, true} {
		cfg := treeOnlyConfig()
		cfg.Gumbel, cfg.Simulations, cfg.MaterialUtility = gumbel, 200, 0.3
		d, err := newPUCT(t, UniformEvaluator{}, cfg, 1).Choose(g)
		if err != nil {
			t.Fatal(err)
		}
		if d.Move != capture {
			t.Errorf("gumbel %v: played %v (pv %v): want the capture %v", gumbel, d.Move, d.PV, capture)
		}
	}
}
