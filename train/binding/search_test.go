package binding

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/stepped"
	"github.com/deathstacks/deathstacks/train"
)

// finish steps run to its end with zero logits and values, the uniform
// evaluator's priors and values.
func finish(t *testing.T, run *stepped.Run) {
	t.Helper()
	capacity := 64 * run.MaxLeaves()
	obs, mask := make([]float32, capacity*env.ObservationSize), make([]bool, capacity*env.NumActions)
	logits, values := make([]float32, capacity*env.NumActions), make([]float32, capacity)
	n, err := run.Round(nil, nil, obs, mask)
	for err == nil && n > 0 {
		n, err = run.Round(logits[:n*env.NumActions], values[:n], obs, mask)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// A Search stepped with zero logits searches as az players with
// mcts.UniformEvaluator do, seeded by position; its results are their
// decisions in rows.
func TestSearchIsTheGoSearch(t *testing.T) {
	const seed = 4
	positions := []Position{{}, {Moves: []string{"a6-2-a4", "b1-1-b2"}}, {FEN: env.StartFEN, Moves: []string{"a6-1-a5"}}}
	text, err := json.Marshal(positions)
	if err != nil {
		t.Fatal(err)
	}
	for _, settings := range []string{`{"sims": 40}`, `{"sims": 16, "gumbel": true}`} {
		t.Run(settings, func(t *testing.T) {
			s, err := NewSearch(settings, seed, env.DefaultRules())
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Results(0, nil, nil, nil, nil); err == nil || !strings.Contains(err.Error(), "nothing has run") {
				t.Fatalf("results before a run: %v", err)
			}
			run, n, err := s.Start(string(text))
			if err != nil || n != len(positions) {
				t.Fatalf("start = %d, %v", n, err)
			}
			finish(t, run)
			n = len(positions)
			visits, policy := make([]int32, n*env.NumActions), make([]float32, n*env.NumActions)
			values, actions := make([]float32, n), make([]int64, n)
			if err := s.Results(n, visits, policy, values, actions); err != nil {
				t.Fatal(err)
			}
			for i, pos := range positions {
				g, err := pos.Game(env.DefaultRules())
				if err != nil {
					t.Fatal(err)
				}
				p, err := mcts.NewPUCTPlayer(mcts.UniformEvaluator{}, s.Config(), env.MixSeed(seed, uint64(i), 0))
				if err != nil {
					t.Fatal(err)
				}
				want, err := p.Choose(g)
				if err != nil {
					t.Fatal(err)
				}
				a, _ := env.ActionOf(want.Move)
				var sum float32
				for _, w := range row(policy, i, env.NumActions) {
					sum += w
				}
				if actions[i] != int64(a) || values[i] != float32(want.Value) || visits[i*env.NumActions+int(a)] != int32(want.Visits[a]) || math.Abs(float64(sum)-1) > 1e-4 {
					t.Errorf("position %d: action %d, value %v, policy sum %v: want the Go search's %d, %v", i, actions[i], values[i], sum, a, want.Value)
				}
			}
			lines, err := s.Lines()
			if err != nil || strings.Count(lines, `"move"`) != n {
				t.Errorf("lines %s, %v: want %d", lines, err, n)
			}
			if err := s.Results(n+1, nil, nil, nil, nil); err == nil {
				t.Error("results for another number of positions")
			}
		})
	}
}

// The settings of searches and self-play, and the positions to search,
// are refused with errors that name what is wrong.
func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  func() error
		want string
	}{
		{"search model", func() error { _, err := NewSearch(`{"model": "x"}`, 0, env.DefaultRules()); return err }, "model: no search setting"},
		{"search not JSON", func() error { _, err := SearchConfig(`[1]`); return err }, "settings: "},
		{"self-play setting", func() error { _, err := NewSelfPlay(`{"resign_threshold": 2}`); return err }, "resign_threshold=2"},
		{"a bad move", func() error {
			s, _ := NewSearch(`{}`, 0, env.DefaultRules())
			_, _, err := s.Start(`[{"fen": ""}, {"moves": ["a6-2-a4", "z9-1-a1"]}]`)
			return err
		}, "search: position 1: moves: "},
		{"self-play games", func() error { _, err := (&SelfPlay{}).Start(0, 1); return err }, "self-play: 0 games"},
		{"symmetries", func() error { return Symmetries(nil, make([]int64, 3)) }, "symmetries: want arrays"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.err(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// SelfPlay stepped with zero logits plays the trainer's games with
// mcts.UniformEvaluator, and hands out their samples, results and moves.
func TestSelfPlayIsTheTrainers(t *testing.T) {
	const games, seed = 3, 7
	r, err := NewSelfPlay(`{"simulations": 8, "fast_simulations": 2, "max_plies": 24, "parallel_games": 2}`)
	if err != nil {
		t.Fatal(err)
	}
	run, err := r.Start(games, seed)
	if err != nil {
		t.Fatal(err)
	}
	finish(t, run)
	want := make([]train.SelfPlayGame, games)
	if err := train.SelfPlayGames(context.Background(), r.Config(), mcts.UniformEvaluator{}, seed, games, func(i int, g train.SelfPlayGame) error {
		want[i] = g
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got, err := r.Games()
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for i := range games {
		if fmt.Sprint(got[i].Moves) != fmt.Sprint(want[i].Moves) || fmt.Sprint(got[i].Samples) != fmt.Sprint(want[i].Samples) {
			t.Errorf("game %d: moves %v, want the trainer's %v", i, got[i].Moves, want[i].Moves)
		}
		total += len(want[i].Samples)
	}
	if n, err := r.Size(); n != int64(total) || err != nil {
		t.Fatalf("size %d, %v: want %d", n, err, total)
	}
	value, ply := make([]float32, total), make([]int64, total)
	if err := r.Samples(total, nil, nil, nil, value, nil, ply); err != nil {
		t.Fatal(err)
	}
	if err := r.Samples(total-1, nil, nil, nil, nil, nil, nil); err == nil {
		t.Error("samples into arrays of another size")
	}
	score := make([]float32, total)
	if err := r.Targets(total, nil, nil, nil, score); err != nil {
		t.Fatal(err)
	}
	plies, winner := make([]int64, games), make([]int64, games)
	if err := r.Results(games, plies, winner, nil); err != nil {
		t.Fatal(err)
	}
	moves, err := r.Moves()
	if err != nil {
		t.Fatal(err)
	}
	var lists [][]string
	if err := json.Unmarshal([]byte(moves), &lists); err != nil || len(lists) != games {
		t.Fatalf("moves %s: %v", moves, err)
	}
	for i, g := range want {
		if plies[i] != int64(len(g.Moves)) || len(lists[i]) != len(g.Moves) || winner[i] < -1 || winner[i] > 1 {
			t.Errorf("game %d: %d plies, %d moves, winner %d: want %d", i, plies[i], len(lists[i]), winner[i], len(g.Moves))
		}
	}
}

// The symmetries are permutations, the identity first.
func TestSymmetries(t *testing.T) {
	squares := make([]int64, env.NumSymmetries*env.NumSquares)
	actions := make([]int64, env.NumSymmetries*env.NumActions)
	if err := Symmetries(squares, actions); err != nil {
		t.Fatal(err)
	}
	for y := range env.NumSymmetries {
		for _, c := range []struct {
			perm []int64
			n    int
		}{{row(squares, y, env.NumSquares), env.NumSquares}, {row(actions, y, env.NumActions), env.NumActions}} {
			seen := make([]bool, c.n)
			for i, to := range c.perm {
				if seen[to] || (y == 0 && to != int64(i)) {
					t.Fatalf("symmetry %d sends %d to %d: not a permutation (the identity first)", y, i, to)
				}
				seen[to] = true
			}
		}
	}
}
