package main

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
)

// runBotCLI runs the command line in-process with stdin and returns its
// output, error output and exit status.
func runBotCLI(stdin string, args ...string) (stdout, stderr string, code int) {
	var out, errOut bytes.Buffer
	code = run(args, stdio{in: strings.NewReader(stdin), out: &out, err: &errOut})
	return out.String(), errOut.String(), code
}

const (
	// winFEN: Red wins with c4-1-c3.
	winFEN = ",,,,,/,,,,,/,,r,,,/,,b,,,/,,,,,/,,,,, r"
	// overFEN: Blue controls no stack.
	overFEN = ",,,,,/,,,,,/,,r,,,/,,,,,/,,,,,/,,,,, b"
)

func TestBot(t *testing.T) {
	in := strings.Join([]string{env.StartFEN, "garbage", winFEN, overFEN, env.StartFEN}, "\n") + "\n"
	for _, spec := range []string{"random", "greedy", "alphabeta:depth=2", "mcts:sims=50"} {
		t.Run(spec, func(t *testing.T) {
			out, errOut, code := runBotCLI(in, "bot", "--player", spec, "--seed", "3")
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != 5 {
				t.Fatalf("%d output lines %q: want one per input line", len(lines), out)
			}
			start := env.StartPosition()
			for _, i := range []int{0, 4} {
				m, err := env.ParseMove(lines[i])
				if err != nil || !start.IsLegal(m, true) {
					t.Errorf("line %d: %q is not a legal move of the start", i+1, lines[i])
				}
			}
			if lines[1] != "none" || lines[3] != "none" {
				t.Errorf("bad and finished lines gave %q and %q, want none", lines[1], lines[3])
			}
			if spec != "random" && lines[2] != "c4-1-c3" {
				t.Errorf("win in one: %q, want c4-1-c3", lines[2])
			}
			if code != 2 || !strings.Contains(errOut, "line 2:") || !strings.Contains(errOut, "line 4:") || !strings.Contains(errOut, "game is over") {
				t.Errorf("status %d, stderr %q: want 2 and messages for lines 2 and 4", code, errOut)
			}
		})
	}
}

func TestBotTooTallFlag(t *testing.T) {
	// Red's five-stack on a1 must move under the too-tall rule; without
	// it, the lone piece on f6 may move too.
	fen := ",,,,,r/,,,,,/,,,,,/,,,,,/,,,,,/rrrrr,,,,,b r"
	for _, tc := range []struct {
		flag string
		want *regexp.Regexp
	}{
		{"", regexp.MustCompile(`^a1-`)},
		{"--no-too-tall", regexp.MustCompile(`^f6-`)},
	} {
		seen := false
		for seed := range 20 {
			args := []string{"bot", "--player", "random", "--seed", strconv.Itoa(seed)}
			if tc.flag != "" {
				args = append(args, tc.flag)
			}
			out, _, code := runBotCLI(fen+"\n", args...)
			if code != 0 {
				t.Fatalf("%v: status %d", args, code)
			}
			if tc.want.MatchString(out) {
				seen = true
			} else if tc.flag == "" {
				t.Fatalf("too-tall rule on: %q does not move the a1 stack", out)
			}
		}
		if !seen {
			t.Errorf("%q: never a move matching %v", tc.flag, tc.want)
		}
	}
}

// The repetition cycle of two lone pieces: after the four moves the
// position of cycleFEN stands again.
const cycleFEN = "r,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,,b r"

var cycle = []string{"a6-1-a5", "f1-1-f2", "a5-1-a6", "f2-1-f1"}

// cycleLine returns cycleFEN followed by the first n moves of the cycle,
// repeated.
func cycleLine(n int) string {
	line := cycleFEN + " moves"
	for i := range n {
		line += " " + cycle[i%4]
	}
	return line
}

func TestBotHistory(t *testing.T) {
	// cycleAt2 is the position two plies into the cycle.
	cycleAt2 := ",,,,,/r,,,,,/,,,,,/,,,,,/,,,,,b/,,,,, r"
	cases := []struct {
		name  string
		lines []string
		want  []string // "" for any move, else the output line
		errs  []string // parts of the error output
	}{
		{"told moves", []string{cycleLine(4), cycleLine(6)}, []string{"", ""}, nil},
		{"told a third repetition", []string{cycleLine(8)}, []string{"none"}, []string{"line 1:", "repetition"}},
		{"told no moves", []string{cycleFEN + " moves"}, []string{""}, nil},
		{"bad move", []string{cycleFEN + " moves a6-1-a5 zz"}, []string{"none"}, []string{"line 1:", "move 2 (zz)"}},
		{"illegal move", []string{cycleFEN + " moves a6-3-a3", cycleFEN}, []string{"none", ""}, []string{"line 1:", "move 1 (a6-3-a3)"}},
		{"no moves word", []string{cycleFEN + " a6-1-a5"}, []string{"none"}, []string{"line 1:", `optionally followed by "moves"`}},
		{"remembered repetition", []string{cycleFEN, cycleAt2, cycleFEN, cycleAt2, cycleFEN}, []string{"", "", "", "", "none"}, []string{"line 5:", "repetition"}},
		{"remembered after told", []string{cycleLine(4), cycleAt2, cycleFEN}, []string{"", "", "none"}, []string{"line 3:", "repetition"}},
		{"a game over is forgotten", []string{cycleLine(8), cycleAt2, cycleFEN}, []string{"none", "", ""}, []string{"line 1:", "repetition"}},
		{"a new game forgets", []string{cycleFEN, cycleAt2, env.StartFEN, cycleFEN, cycleAt2, cycleFEN}, []string{"", "", "", "", "", ""}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runBotCLI(strings.Join(tc.lines, "\n")+"\n", "bot", "--player", "random")
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != len(tc.want) {
				t.Fatalf("output %q: want %d lines", out, len(tc.want))
			}
			for i, want := range tc.want {
				if want == "" && lines[i] == "none" || want != "" && lines[i] != want {
					t.Errorf("line %d: %q, want %q (stderr %q)", i+1, lines[i], cmp(want, "a move"), errOut)
				}
			}
			if wantCode := map[bool]int{true: 2, false: 0}[tc.errs != nil]; code != wantCode {
				t.Errorf("status %d, want %d (stderr %q)", code, wantCode, errOut)
			}
			for _, part := range tc.errs {
				if !strings.Contains(errOut, part) {
					t.Errorf("stderr %q lacks %q", errOut, part)
				}
			}
		})
	}
}

// cmp returns s, or alt for "".
func cmp(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

func TestBotBuiltInPlayer(t *testing.T) {
	// Without --player the bot plays az: the built-in player, which finds
	// the win in one and remembers the game.
	out, errOut, code := runBotCLI(winFEN+"\n"+env.StartFEN+"\n", "bot")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != 2 || lines[0] != "c4-1-c3" {
		t.Fatalf("status %d, output %q, stderr %q: want c4-1-c3 and a move", code, out, errOut)
	}
	start := env.StartPosition()
	if m, err := env.ParseMove(lines[1]); err != nil || !start.IsLegal(m, true) {
		t.Errorf("start position: %q is not a legal move", lines[1])
	}
	out, errOut, code = runBotCLI("", "bestmove", "--fen", env.StartFEN, "--player", "az:time=50ms")
	if code != 0 || !strings.Contains(out, "simulations: ") {
		t.Errorf("bestmove with a timed built-in player: status %d, output %q, stderr %q", code, out, errOut)
	}
}
