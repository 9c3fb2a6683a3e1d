package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/env"
)

// commandNames lists every command line that has its own flags: each
// command, with bench's two.
func commandNames() [][]string {
	var out [][]string
	for name := range commands() {
		if name == "bench" {
			out = append(out, []string{"bench", "mcts"}, []string{"bench", "nn"})
			continue
		}
		out = append(out, []string{name})
	}
	sort.Slice(out, func(i, j int) bool { return strings.Join(out[i], " ") < strings.Join(out[j], " ") })
	return out
}

// textFlag matches a flag of PrintDefaults that takes text: a string or a
// repeated value.
var textFlag = regexp.MustCompile(`(?m)^  -(\S+) (string|value)$`)

// Every flag that takes text, given explicitly empty, is bad input.
func TestEmptyTextFlags(t *testing.T) {
	seen := 0
	for _, cmd := range commandNames() {
		_, help, code := runBotCLI("", append(cmd, "--help")...)
		if code != 0 {
			t.Fatalf("%v --help: status %d", cmd, code)
		}
		flags := textFlag.FindAllStringSubmatch(help, -1)
		seen += len(flags)
		for _, f := range flags {
			args := append(append([]string(nil), cmd...), "--"+f[1]+"=")
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				_, errOut, code := runBotCLI("", args...)
				if code != 2 || !strings.Contains(errOut, "empty") {
					t.Errorf("status %d, stderr %q: want 2 and a word on the empty flag", code, firstLine(errOut))
				}
			})
		}
	}
	if seen < 20 {
		t.Errorf("only %d text flags found in the commands' help: is the pattern stale?", seen)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Every command keeps README.md's promise on exit statuses: 0 for --help, 2
// for a bad flag, a missing or unreadable input file or a bad value, and
// no error line repeats the command's name.
func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	junk := filepath.Join(dir, "junk.dsck")
	if err := os.WriteFile(junk, []byte("not a checkpoint"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	type tc struct {
		args []string
		want int
	}
	var tests []tc
	for _, cmd := range commandNames() {
		tests = append(tests,
			tc{append(cmd, "--help"), 0},
			tc{append(cmd, "-h"), 0},
			tc{append(cmd, "--no-such-flag"), 2},
		)
	}
	tests = append(tests,
		tc{[]string{}, 2},
		tc{[]string{"help"}, 0},
		tc{[]string{"nosuch"}, 2},
		tc{[]string{"bench"}, 2},
		tc{[]string{"bench", "nosuch"}, 2},
		// Missing or unreadable input files.
		tc{[]string{"plot", "--run", missing}, 2},
		tc{[]string{"plot", "--run", dir}, 2}, // no metrics.jsonl
		tc{[]string{"export", "--checkpoint", missing, "--out", out}, 2},
		tc{[]string{"export", "--checkpoint", dir, "--out", out}, 2}, // no checkpoint
		tc{[]string{"export", "--checkpoint", junk, "--out", out}, 2},
		tc{[]string{"ladder", "--run", missing}, 2},
		tc{[]string{"train", "--config", missing}, 2},
		tc{[]string{"train", "--config", "nosuch"}, 2},
		tc{[]string{"train", "--resume", "--out", missing}, 2},
		tc{[]string{"eval", "--player", "az:model=" + missing, "--player", "random"}, 2},
		tc{[]string{"eval", "--player", "az:model=" + junk, "--player", "random"}, 2},
		tc{[]string{"bot", "--player", "az:model=" + missing}, 2},
		tc{[]string{"bestmove", "--fen", env.StartFEN, "--player", "az:model=" + missing}, 2},
		tc{[]string{"play", "--player", "az:model=" + missing}, 2},
		tc{[]string{"bench", "nn", "--config", missing}, 2},
		tc{[]string{"inspect", missing}, 2},
		tc{[]string{"inspect", junk}, 2},
		tc{[]string{"inspect", dir}, 2}, // a run directory without a checkpoint
		// Bad values.
		tc{[]string{"moves", "--fen", "x"}, 2},
		tc{[]string{"perft", "--depth", "0"}, 2},
		tc{[]string{"show", "--fen", "x"}, 2},
		tc{[]string{"bot", "--player", "nosuch"}, 2},
		tc{[]string{"bestmove", "--player", "random"}, 2},
		tc{[]string{"bestmove", "--fen", overFEN, "--player", "random"}, 2}, // finished: "none", as bot
		tc{[]string{"eval", "--player", "random"}, 2},
		tc{[]string{"eval", "--player", "random", "--player", "greedy", "--games", "0"}, 2},
		tc{[]string{"ladder"}, 2},
		tc{[]string{"ladder", "--run", dir, "--games", "0"}, 2},
		tc{[]string{"plot"}, 2},
		tc{[]string{"export", "--checkpoint", junk}, 2},
		tc{[]string{"train", "--iterations", "-1"}, 2},
		tc{[]string{"play", "--human", "green"}, 2},
		tc{[]string{"bench", "mcts", "--sims", "0"}, 2},
		tc{[]string{"bench", "nn", "--batches", "x"}, 2},
		tc{[]string{"inspect", junk, junk}, 2},
		tc{[]string{"version", "extra"}, 2},
		// Success.
		tc{[]string{"version"}, 0},
		tc{[]string{"show"}, 0},
		tc{[]string{"bot"}, 0},     // the built-in player, with nothing to read
		tc{[]string{"inspect"}, 0}, // the built-in player
	)
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, errOut, code := runBotCLI("", tc.args...)
			if code != tc.want {
				t.Errorf("status %d, want %d; stderr %q", code, tc.want, firstLine(errOut))
			}
			if len(tc.args) > 0 {
				if doubled := "deathstacks " + tc.args[0] + ": " + tc.args[0] + ":"; strings.Contains(errOut, doubled) {
					t.Errorf("stderr repeats the command's name: %q", firstLine(errOut))
				}
			}
		})
	}
}

func TestVersion(t *testing.T) {
	out, _, code := runBotCLI("", "version")
	if code != 0 {
		t.Fatalf("status %d", code)
	}
	for _, w := range []string{"deathstacks ", "\ngo: go1.", "\nblas: "} {
		if !strings.Contains(out, w) {
			t.Errorf("version output %q lacks %q", out, w)
		}
	}
}

// train --config with a name that is neither a file nor a built-in
// config lists the built-in ones.
func TestTrainConfigUnknownName(t *testing.T) {
	_, errOut, code := runBotCLI("", "train", "--config", "nosuch")
	if code != 2 {
		t.Errorf("status %d, want 2", code)
	}
	for _, name := range configs.Names() {
		if !strings.Contains(errOut, name) {
			t.Errorf("stderr %q does not list the built-in config %s", errOut, name)
		}
	}
}

// TestSimulationsFlag: --simulations, the search setting's key, and --sims,
// its earlier name, set one value, and a message names the flag as given.
func TestSimulationsFlag(t *testing.T) {
	cases := []struct {
		args  []string
		value int
		given bool
		name  string
	}{
		{nil, 5, false, "simulations"},
		{[]string{"--simulations", "7"}, 7, true, "simulations"},
		{[]string{"--sims", "0"}, 0, true, "sims"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			sims := simulationsFlag(fs, 5, "simulations per move")
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if *sims != tc.value || flagGiven(fs, "simulations") != tc.given || givenName(fs, "simulations") != tc.name {
				t.Errorf("value %d, given %v, named %q: want %d, %v, %q", *sims, flagGiven(fs, "simulations"), givenName(fs, "simulations"), tc.value, tc.given, tc.name)
			}
		})
	}
}

// commandLineOf is [commandLine] as the program invoked as arg0 writes it.
func commandLineOf(t *testing.T, arg0, name string, args []string) string {
	t.Helper()
	was := program
	program = invokedAs(arg0)
	defer func() { program = was }()
	return commandLine(name, args)
}

// TestInvokedAs checks that printed command lines name the program as the
// user ran it, so that they run as printed.
func TestInvokedAs(t *testing.T) {
	for _, tc := range []struct{ arg0, want string }{
		{"deathstacks", "deathstacks"},
		{"./deathstacks", "./deathstacks"},
		{"/usr/local/bin/deathstacks", "/usr/local/bin/deathstacks"},
		{"../bin/deathstacks", "../bin/deathstacks"},
		{"/home/me/my tools/deathstacks", "'/home/me/my tools/deathstacks'"},
		{"/tmp/go-build1234567/b001/exe/deathstacks", "go run ./cmd/deathstacks"},
		{"/root/.cache/go-build/tmp/go-build99/b001/exe/deathstacks", "go run ./cmd/deathstacks"},
		{"/home/me/go-builder/deathstacks", "/home/me/go-builder/deathstacks"},
		{"/home/go-build-tools/deathstacks", "/home/go-build-tools/deathstacks"},
		{"", "deathstacks"},
	} {
		t.Run(tc.arg0, func(t *testing.T) {
			if got := invokedAs(tc.arg0); got != tc.want {
				t.Errorf("invokedAs(%q) = %q, want %q", tc.arg0, got, tc.want)
			}
			args := []string{"--resume", "--out", "runs/a b"}
			want := tc.want + " train --resume --out 'runs/a b'"
			if got := commandLineOf(t, tc.arg0, "train", args); got != want {
				t.Errorf("command line %q, want %q", got, want)
			}
		})
	}
}

// TestUsageErrorsAreShort checks that a command line the program cannot
// read gets what is wrong, as the user wrote it, and one line pointing to
// --help: never the whole usage.
func TestUsageErrorsAreShort(t *testing.T) {
	type tc struct {
		args []string
		want string // in the first line
	}
	var tests []tc
	for _, cmd := range commandNames() {
		tests = append(tests, tc{append(cmd, "--no-such-flag"), "unknown flag --no-such-flag"})
	}
	tests = append(tests,
		tc{[]string{"nosuch"}, `unknown command "nosuch"`},
		tc{[]string{"train", "--time-limit", "banana"}, `--time-limit "banana": want a duration such as 90s`},
		tc{[]string{"train", "-iterations=x"}, `-iterations "x": want a whole number`},
		tc{[]string{"train", "--out"}, "--out needs a value"},
		tc{[]string{"eval", "--seed", "-1"}, `--seed "-1": want a whole number, 0 or more`},
		tc{[]string{"bench", "mcts", "--seconds", "soon"}, `--seconds "soon": want a number`},
		tc{[]string{"eval", "--quiet=maybe"}, `--quiet "maybe": want true or false`},
		tc{[]string{"export", "--meta", "novalue"}, `--meta "novalue": "novalue": want KEY=VALUE`},
		tc{[]string{"inspect", "a", "b"}, `unexpected argument "b"`},
	)
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, errOut, code := runBotCLI("", tc.args...)
			lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			if code != 2 || len(lines) != 2 || !strings.Contains(lines[0], tc.want) || !strings.Contains(lines[1], " help") && !strings.Contains(lines[1], "--help") {
				t.Errorf("status %d, stderr %q: want 2, and two lines: %q and a pointer to the help", code, errOut, tc.want)
			}
		})
	}
}
