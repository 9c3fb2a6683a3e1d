package main

import (
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
)

func TestBestmove(t *testing.T) {
	cases := []struct {
		spec string
		keys []string
	}{
		{"alphabeta:depth=3", []string{"value", "value_for", "depth", "score", "pv", "nodes"}},
		{"mcts:sims=100", []string{"value", "value_for", "visits", "simulations", "pv", "nodes"}},
		{"greedy", []string{"value", "value_for", "depth", "score", "pv", "nodes"}},
		{"random", []string{"pv"}},
	}
	for _, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			out, errOut, code := runBotCLI("", "bestmove", "--fen", winFEN, "--player", tc.spec)
			if code != 0 {
				t.Fatalf("status %d: %s", code, errOut)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if tc.spec != "random" && lines[0] != "c4-1-c3" {
				t.Errorf("move %q, want c4-1-c3", lines[0])
			}
			var keys []string
			for _, l := range lines[1:] {
				k, _, ok := strings.Cut(l, ": ")
				if !ok {
					t.Errorf("line %q: want key: value", l)
				}
				keys = append(keys, k)
				if v, _ := strings.CutPrefix(l, "value_for: "); k == "value_for" && v != "red" {
					t.Errorf("%q: want the value for red, the side to move of winFEN", l)
				}
			}
			if strings.Join(keys, ",") != strings.Join(tc.keys, ",") {
				t.Errorf("keys %v, want %v", keys, tc.keys)
			}
		})
	}
}

func TestBestmoveErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"bestmove", "--player", "greedy"}, "--fen is required"},
		{[]string{"bestmove", "--fen", "x", "--player", "greedy"}, "missing side to move"},
		{[]string{"bestmove", "--fen", winFEN, "--player", "minimax"}, "random, greedy, alphabeta, mcts, az"},
		{[]string{"bestmove", "--fen", winFEN, "--player", "alphabeta:nodes=3"}, "valid keys are depth, time"},
		{[]string{"bestmove", "--fen", winFEN, "--player", "az:model=m.model"}, "no such file"},
		{[]string{"bestmove", "--fen", overFEN, "--player", "greedy"}, "game is over"},
		{[]string{"bot", "--player", "az:model=m.model"}, "no such file"},
		{[]string{"bot", "--player", "az:sims=0,time=0s"}, "simulations is 0 without a time"}, // the built-in player has a time
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, code := runBotCLI("", tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("status %d, stderr %q: want 2 and %q", code, errOut, tc.want)
			}
			if strings.Contains(tc.want, "over") && out != "none\n" {
				t.Errorf("finished position: output %q, want none", out)
			}
		})
	}
}

func TestBestmoveMoves(t *testing.T) {
	moves := strings.Join(append(append([]string{}, cycle...), cycle...), " ")
	out, errOut, code := runBotCLI("", "bestmove", "--fen", cycleFEN, "--moves", moves, "--player", "greedy")
	if code != 2 || out != "none\n" || !strings.Contains(errOut, "repetition") {
		t.Errorf("after a third repetition: status %d, output %q, stderr %q: want 2, none, a draw by repetition", code, out, errOut)
	}
	out, errOut, code = runBotCLI("", "bestmove", "--fen", cycleFEN, "--moves", "a6-1-a5 f1-1-f2", "--player", "greedy")
	if code != 0 || !strings.HasPrefix(out, "a5-") {
		t.Errorf("two plies on: status %d, output %q, stderr %q: want a move of the a5 piece", code, out, errOut)
	}
	_, errOut, code = runBotCLI("", "bestmove", "--fen", cycleFEN, "--moves", "a6-1-a5 a5-1-a4", "--player", "greedy")
	if code != 2 || !strings.Contains(errOut, "--moves: move 2 (a5-1-a4)") {
		t.Errorf("an illegal move: status %d, stderr %q", code, errOut)
	}
}

// The value is said for the side to move after --moves.
func TestBestmoveValueFor(t *testing.T) {
	for _, tc := range []struct{ fen, moves, want string }{
		{winFEN, "", "red"},
		{strings.TrimSuffix(winFEN, "r") + "b", "", "blue"},
		{env.StartFEN, "a6-1-a5", "blue"},
		{env.StartFEN, "a6-1-a5 a1-1-a2", "red"},
	} {
		t.Run(tc.fen+" "+tc.moves, func(t *testing.T) {
			args := []string{"bestmove", "--fen", tc.fen, "--player", "greedy"}
			if tc.moves != "" {
				args = append(args, "--moves", tc.moves)
			}
			out, errOut, code := runBotCLI("", args...)
			if code != 0 || !strings.Contains(out, "\nvalue_for: "+tc.want+"\n") {
				t.Errorf("status %d, output %q, stderr %q: want value_for: %s", code, out, errOut, tc.want)
			}
		})
	}
}
