package main

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/binding"
)

// arenaCaller plays the Python side of an evaluation as arena.py does: it
// serves each player's work until the games end. evaluate makes the
// values of a batch of n leaves (logits are zero: a uniform policy), or
// fails; policy answers a game's position. It returns the sizes of the
// batches served. As the calls from C of one evaluation come from one
// thread, it locks the test's goroutine to its thread for the rest of the
// test (and the evaluation's close).
type arenaCaller struct {
	values func(batch int, n int) ([]float32, error)
	policy func(fen string, moves []string) string
}

func (c arenaCaller) serve(t testing.TB, e *evaluation, capacity int) (batches []int, err error) {
	t.Helper()
	runtime.LockOSThread()
	obs := make([]float32, capacity*env.ObservationSize)
	mask := make([]bool, capacity*env.NumActions)
	logits := make([]float32, capacity*env.NumActions)
	for {
		code, err := e.wait(50, nil)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case code == waitEnded:
			return batches, nil
		case code < waitWork:
			continue
		}
		k := code - waitWork
		if _, evaluator := e.python.EvaluatorConfig(int(k)); !evaluator {
			q, err := e.python.Question(k)
			if err != nil {
				t.Fatal(err)
			}
			var game arena.PolicyQuestion
			if err := json.Unmarshal([]byte(q), &game); err != nil {
				t.Fatal(err)
			}
			if err := e.python.Answer(game.ID, c.policy(game.FEN, game.Moves)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		n, err := e.python.Leaves(k, obs, mask, capacity)
		if err != nil {
			return batches, err
		}
		if n == 0 {
			continue
		}
		values, err := c.values(len(batches), n)
		if err != nil {
			return batches, err
		}
		batches = append(batches, n)
		if err := e.python.Feed(k, logits[:n*env.NumActions], values, n); err != nil {
			t.Fatal(err)
		}
	}
}

// zeros is an evaluator's values: all zero.
func zeros(_, n int) ([]float32, error) { return make([]float32, n), nil }

// greedyPolicy answers greedy's move in the game of a FEN and moves.
func greedyPolicy(t *testing.T) func(string, []string) string {
	return func(fen string, moves []string) string {
		g, err := binding.Position{FEN: fen, Moves: moves}.Game(env.DefaultRules())
		if err != nil {
			t.Error(err)
			return ""
		}
		d, err := players.NewGreedyPlayer(1).Choose(g)
		if err != nil {
			t.Error(err)
			return ""
		}
		return d.Move.String()
	}
}

const pythonPlayers = `"players": [{"name": "net", "python": "evaluator", "settings": {"sims": 16}}, {"name": "pol", "python": "policy"},
	{"name": "r", "spec": "random"}], "seed": 3, "opening_plies": 2, "max_plies": 60`

// An evaluator without settings searches as an az player does.
func TestPythonEvaluatorDefaults(t *testing.T) {
	e, err := newEvaluation(`{"players": [{"name": "net", "python": "evaluator"}, {"name": "r", "spec": "random"}], "games": 2, "parallel": 1}`)
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	if got, want := first(e.python.EvaluatorConfig(0)), mcts.DefaultConfig(); got.Simulations != want.Simulations || got.BatchSize != want.BatchSize {
		t.Errorf("search settings %+v, want an az player's %+v", got, want)
	}
}

func TestPythonPlayers(t *testing.T) {
	e, err := newEvaluation(`{` + pythonPlayers + `, "games": 4, "parallel": 4}`)
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	batches, err := arenaCaller{values: zeros, policy: greedyPolicy(t)}.serve(t, e, 4*8)
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.outcome()
	if err != nil {
		t.Fatal(err)
	}
	var res arenaResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Games) != 12 {
		t.Errorf("%d games, want 12", len(res.Games))
	}
	for _, g := range res.Games {
		if g.Detail != "" {
			t.Errorf("game %d: %s %s", g.Game, g.Reason, g.Detail)
		}
	}
	specs := map[string]string{}
	for _, p := range res.Results.Players {
		specs[p.Name] = p.Spec
	}
	if want := map[string]string{"net": "python evaluator sims=16", "pol": "python policy", "r": "random"}; fmt.Sprint(specs) != fmt.Sprint(want) {
		t.Errorf("specs %v, want %v", specs, want)
	}
	// The leaves of several games go in one batch: more than one
	// search's 8 leaves.
	if len(batches) == 0 || slices.Max(batches) <= 8 || slices.Max(batches) > 32 {
		t.Errorf("batches %v: want some of more than 8 leaves, none above the capacity, 32", batches)
	}
}

// A Python player's failure stops the evaluation with its error, and
// every game is released: a bad result of the evaluator's, the caller's
// own failure (which closes the evaluation), a policy's malformed move
// (a lost game, as an external program's).
func TestPythonPlayerFailures(t *testing.T) {
	nan := func(batch, n int) ([]float32, error) {
		v := make([]float32, n)
		if batch == 3 {
			v[n-1] = float32(math.NaN())
		}
		return v, nil
	}
	if _, err := runPython(t, arenaCaller{values: nan, policy: greedyPolicy(t)}); err == nil || !strings.Contains(err.Error(), "evaluate: player net: the evaluator returned NaN for the value of position ") || !strings.Contains(err.Error(), "values must be finite, in [-1, 1]") {
		t.Errorf("an evaluator's NaN: error %v", err)
	}
	boom := fmt.Errorf("boom")
	failing := func(batch, n int) ([]float32, error) {
		if batch == 2 {
			return nil, boom
		}
		return zeros(batch, n)
	}
	if _, err := runPython(t, arenaCaller{values: failing, policy: greedyPolicy(t)}); err != boom {
		t.Errorf("the caller's failure: error %v", err)
	}
	res, err := runPython(t, arenaCaller{values: zeros, policy: func(string, []string) string { return "a1-9-z9" }})
	if err != nil {
		t.Fatal(err)
	}
	lost := 0
	for _, g := range res.Games {
		if g.Reason == "malformed move" {
			lost++
		}
	}
	if lost != 4 {
		t.Errorf("%d games lost by a malformed move, want the policy's 4", lost)
	}
}

// runPython plays the evaluation of pythonPlayers with the caller c,
// closing it when c fails, and returns the result or the error.
func runPython(t *testing.T, c arenaCaller) (arenaResult, error) {
	t.Helper()
	var res arenaResult
	e, err := newEvaluation(`{` + pythonPlayers + `, "games": 2, "parallel": 3}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.serve(t, e, 3*8); err != nil {
		e.close() // as arena.py closes on an exception
		if out, _ := e.outcome(); out != "" {
			t.Errorf("an outcome %s after a failure", out)
		}
		return res, err
	}
	defer e.close()
	out, err := e.outcome()
	if err != nil {
		return res, err
	}
	return res, json.Unmarshal([]byte(out), &res)
}

func TestPythonRequestErrors(t *testing.T) {
	cases := []struct{ name, players, want string }{
		{"unknown kind", `{"name": "a", "python": "value"}`, `python is "value": want "evaluator" or "policy"`},
		{"two forms", `{"name": "a", "python": "policy", "spec": "random"}`, "want exactly one of spec, model, text and python"},
		{"settings of a spec", `{"name": "a", "spec": "random", "settings": {"sims": 2}}`, "settings are a Python evaluator's"},
		{"settings of a policy", `{"name": "a", "python": "policy", "settings": {"sims": 2}}`, "settings are a Python evaluator's"},
		{"unknown setting", `{"name": "a", "python": "evaluator", "settings": {"simz": 2}}`, `simz`},
		{"model setting", `{"name": "a", "python": "evaluator", "settings": {"model": "x"}}`, "model: no search setting"},
		{"bad value", `{"name": "a", "python": "evaluator", "settings": {"sims": -2}}`, "sims=-2: want a whole number"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, err := newEvaluation(`{"players": [` + tc.players + `, {"name": "b", "spec": "random"}], "games": 2, "parallel": 1}`)
			if err == nil {
				e.close()
			}
			if err == nil || !strings.Contains(err.Error(), "evaluate: player a: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one about player a containing %q", err, tc.want)
			}
		})
	}
}

// first returns the first of two results.
func first[T, U any](v T, _ U) T { return v }

// BenchmarkPythonEvaluatorArena plays a Python evaluator's games (a
// uniform policy, zero values, served by a Go caller as arena.py serves
// them) against random, 8 at a time, and reports the leaves evaluated a
// second.
func BenchmarkPythonEvaluatorArena(b *testing.B) {
	leaves := 0
	for b.Loop() {
		e, err := newEvaluation(`{"players": [{"name": "net", "python": "evaluator", "settings": {"sims": 64}}, {"name": "r", "spec": "random"}],
			"games": 8, "parallel": 8, "seed": 1, "opening_plies": 2, "max_plies": 60}`)
		if err != nil {
			b.Fatal(err)
		}
		batches, err := arenaCaller{values: zeros}.serve(b, e, 8*8)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range batches {
			leaves += n
		}
		e.close()
	}
	b.ReportMetric(float64(leaves)/b.Elapsed().Seconds(), "leaves/s")
}
