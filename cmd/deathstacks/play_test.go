package main

import (
	"regexp"
	"strings"
	"testing"
)

func TestPlayScriptedGame(t *testing.T) {
	script := strings.Join([]string{
		"help",
		"moves",
		"a6-3-a3",  // not legal: a6 holds two pieces
		"b1-1-b2",  // Blue's stack: Red is to move
		"nonsense", // malformed
		"a6-1-a5",  // legal
		"hint",     //
		"undo",     // takes back a6-1-a5 and the reply
		"undo",     // nothing left
		"c6-2-c4",  //
		"quit",
	}, "\n") + "\n"
	out, errOut, code := runBotCLI(script, "play", "--player", "greedy", "--seed", "7")
	if code != 0 {
		t.Fatalf("status %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"You play red.",
		"48 legal moves: a6-1-a5",
		"illegal: move a6-3-a3: the stack on a6 has 2 pieces",
		"illegal: move b1-1-b2: b1 is controlled by blue, and red is to move",
		"move \"nonsense\": want <from>-<count>-<to>",
		"you play a6-1-a5",
		"engine plays ",
		"hint: ",
		"took back your last move",
		"nothing to undo",
		"you play c6-2-c4",
		"bye",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("escape codes on a pipe")
	}
	if got := strings.Count(out, "engine plays "); got != 2 {
		t.Errorf("%d engine moves, want 2 (one undone)", got)
	}
}

func TestPlayEngineFirstAndGameEnd(t *testing.T) {
	// Blue to move can win at once (c3-1-c4 covers Red's only stack);
	// the person plays Red, so the engine moves first and ends the game.
	fen := ",,,,,/,,,,,/,,r,,,/,,b,,,/,,,,,/,,,,, b"
	out, errOut, code := runBotCLI("", "play", "--player", "alphabeta:depth=2", "--fen", fen)
	if code != 0 {
		t.Fatalf("status %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "engine plays c3-1-c4") || !strings.Contains(out, "game over: blue wins") {
		t.Errorf("output %q: want the engine's winning move and the result", out)
	}
}

func TestPlayBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"play", "--human", "green"},
		{"play", "--player", "nobody"},
		{"play", "--fen", "x"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			if _, errOut, code := runBotCLI("", args...); code != 2 || errOut == "" {
				t.Errorf("status %d, stderr %q: want 2 and a message", code, errOut)
			}
		})
	}
}

// A value says whose it is, in the engine's line and in a hint alike.
func TestPlayValuesSaySide(t *testing.T) {
	out, errOut, code := runBotCLI("a6-1-a5\nhint\nquit\n", "play", "--player", "mcts:sims=50", "--seed", "3")
	if code != 0 {
		t.Fatalf("status %d, stderr %q", code, errOut)
	}
	engine := regexp.MustCompile(`engine plays \S+ \(value (0\.00|[+-][01]\.\d\d) for blue, 50 simulations\)`)
	hint := regexp.MustCompile(`hint: \S+ \(value (0\.00|[+-][01]\.\d\d) for red, 50 simulations\)`)
	if !engine.MatchString(out) || !hint.MatchString(out) {
		t.Errorf("output lacks the engine's value for blue or the hint's for red:\n%s", out)
	}
	if strings.Contains(out, "-0.00") {
		t.Errorf("output says -0.00:\n%s", out)
	}
}
