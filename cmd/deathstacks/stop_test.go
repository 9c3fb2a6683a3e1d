package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/train/report"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// stoppable is every command that stops on Ctrl-C or SIGTERM, each with
// a command line that runs it briefly (dir is a fresh directory for its
// output).
func stoppable(t *testing.T) map[string]func(dir string) []string {
	run := fakeRun(t, 1)
	return map[string]func(dir string) []string{
		"train": func(dir string) []string {
			return []string{"train", "--config", "smoke", "--out", filepath.Join(dir, "run"), "--quiet"}
		},
		"eval": func(dir string) []string {
			return []string{"eval", "--player", "random", "--player", "greedy", "--games", "2", "--out", dir, "--quiet"}
		},
		"ladder": func(dir string) []string {
			return []string{"ladder", "--run", run, "--vs", "random", "--games", "2", "--sims", "2", "--out", dir, "--quiet"}
		},
		"actor": func(string) []string { return []string{"actor", "--connect", "nats://127.0.0.1:1"} },
		"serve": func(string) []string { return []string{"serve", "--addr", "127.0.0.1:0", "--player", "random"} },
		"bench mcts": func(string) []string {
			return []string{"bench", "mcts", "--seconds", "0.01", "--simulations", "2", "--depth", "1"}
		},
		"bench nn": func(string) []string {
			return []string{"bench", "nn", "--config", "smoke", "--seconds", "0.01", "--batches", "1", "--clients", "1", "--train-batch", "0"}
		},
	}
}

// stoppedLine is the one way a command says it stopped: its last line.
var stoppedLine = regexp.MustCompile(`^deathstacks ([a-z]+): stopped( after [0-9]+( of [0-9]+)? [a-z]+)?(; continue with: (deathstacks .*))?$`)

// Every command stops on Ctrl-C with status 130 and on SIGTERM with 143,
// saying so in one form, and the command it prints to continue, run as
// printed, finishes the work; a command whose --help speaks of Ctrl-C is
// among those tested.
func TestStoppedStatus(t *testing.T) {
	cases := stoppable(t)
	for _, cmd := range commandNames() {
		name := strings.Join(cmd, " ")
		_, help, _ := runBotCLI("", append(cmd, "--help")...)
		if _, tested := cases[name]; strings.Contains(help, "Ctrl-C") != tested {
			t.Errorf("%s: its help speaks of Ctrl-C: %v; tested as a command that stops: %v", name, !tested, tested)
		}
	}
	for name, args := range cases {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(name+" "+sig.String(), func(t *testing.T) {
				_, errOut, code := runSignalledCLI(sig, args(t.TempDir())...)
				if want := 128 + int(sig); code != want {
					t.Errorf("status %d, want %d; stderr %q", code, want, errOut)
				}
				lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
				m := stoppedLine.FindStringSubmatch(lines[len(lines)-1])
				if m == nil || m[1] != strings.Fields(name)[0] {
					t.Errorf("last line %q: not the stopped line of %s", lines[len(lines)-1], name)
				}
				if !strings.Contains(errOut, "\nstopping: ") {
					t.Errorf("stderr %q: nothing said when the signal came", errOut)
				}
				if m == nil || m[5] == "" {
					return
				}
				// The command printed, run as printed, does the work.
				again := strings.Fields(m[5])[1:] // the test's paths hold no spaces
				if _, errOut, code := runBotCLI("", again...); code != 0 {
					t.Errorf("%v: status %d, stderr %q", again, code, errOut)
				}
			})
		}
	}
}

// Every command line: --help shows flags under "flags:" or no such
// heading at all, and status 0; an unknown flag is status 2.
func TestEveryCommandHelp(t *testing.T) {
	for _, cmd := range commandNames() {
		t.Run(strings.Join(cmd, " "), func(t *testing.T) {
			_, help, code := runBotCLI("", append(cmd, "--help")...)
			if code != 0 || !strings.HasPrefix(help, "usage: deathstacks "+strings.Join(cmd, " ")) {
				t.Errorf("--help: status %d, %q", code, firstLine(help))
			}
			if _, after, ok := strings.Cut(help, "\nflags:\n"); ok && !strings.HasPrefix(after, "  -") {
				t.Errorf("--help: a flags heading without flags: %q", help)
			}
			if strings.HasSuffix(strings.TrimSpace(help), "flags:") {
				t.Errorf("--help ends with an empty flags heading")
			}
			if _, errOut, code := runBotCLI("", append(cmd, "--no-such-flag")...); code != 2 || !strings.Contains(errOut, "no-such-flag") {
				t.Errorf("an unknown flag: status %d, stderr %q: want 2 naming it", code, firstLine(errOut))
			}
		})
	}
}

// hintCommand returns the command a line of out prints after "what: " (a
// "continue with:" or "such as:"), as the arguments after "deathstacks".
func hintCommand(t *testing.T, out, what string) []string {
	t.Helper()
	_, after, ok := strings.Cut(out, what+" deathstacks ")
	if !ok {
		t.Fatalf("no %q in %q", what, out)
	}
	line, _, _ := strings.Cut(after, "\n")
	return strings.Fields(line) // the test's paths hold no spaces
}

// stopWriter is standard output that ends a test's stop context, as a
// signal sig would, once a line holding at appears.
type stopWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	at     string
	sig    syscall.Signal
	cancel context.CancelCauseFunc
}

func (w *stopWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.at) {
		w.cancel(stopSignal{w.sig})
	}
	return len(p), nil
}

func (w *stopWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// A run stopped with a target of 3 iterations after the first says so
// (status 143 for SIGTERM) and prints the command that continues it;
// that command, as printed, trains to the target the run was started
// with, and exits 0. Resumed again, it says there is nothing left to do
// and how to train further, and that command, as printed, trains one more.
func TestTrainResumeKeepsTarget(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	out := &stopWriter{at: "iteration 1 of 3: ", sig: syscall.SIGTERM, cancel: cancel}
	var errOut bytes.Buffer
	code := run([]string{"train", "--config", "smoke", "--iterations", "3", "--out", dir, "--quiet"},
		stdio{in: strings.NewReader(""), out: out, err: &errOut, stop: ctx})
	want := "deathstacks train: stopped after 1 of 3 iterations; continue with: deathstacks train --resume --out " + dir + "\n"
	if code != 143 || !strings.HasSuffix(errOut.String(), want) {
		t.Fatalf("stopped: status %d, stderr %q: want 143 and %q\nstdout:\n%s", code, errOut.String(), want, out)
	}
	again := hintCommand(t, errOut.String(), "continue with:")
	stdout, stderr, code := runBotCLI("", again...)
	if code != 0 || !strings.Contains(stdout, "done: 3 iterations in "+dir) {
		t.Fatalf("%v: status %d, stderr %q, stdout:\n%s\nwant 0 and the run at its target, 3", again, code, stderr, stdout)
	}
	stdout, stderr, code = runBotCLI("", again...)
	if code != 0 || !strings.Contains(stdout, "done: nothing left to do: 3 iterations in "+dir+", the run's target") {
		t.Fatalf("%v once finished: status %d, stderr %q, stdout:\n%s\nwant 0 and nothing left to do", again, code, stderr, stdout)
	}
	further := hintCommand(t, stdout, "such as:")
	if want := []string{"train", "--resume", "--out", dir, "--iterations", "4"}; fmt.Sprint(further) != fmt.Sprint(want) {
		t.Errorf("the hint to train further: %v, want %v", further, want)
	}
	stdout, stderr, code = runBotCLI("", further...)
	if code != 0 || !strings.Contains(stdout, "done: 4 iterations in "+dir) {
		t.Errorf("%v: status %d, stderr %q, stdout:\n%s\nwant 0 and a fourth iteration", further, code, stderr, stdout)
	}
}

// A run stopped before its first checkpoint has nothing to resume: the
// command it prints is the one that started it, which starts afresh.
func TestTrainStoppedAtOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"train", "--config", "smoke", "--out", dir, "--quiet"}
	_, errOut, code := runStoppedCLI(args...)
	if want := "stopped after 0 of 2 iterations; continue with: " + commandLine("train", args[1:]) + "\n"; code != 130 || !strings.HasSuffix(errOut, want) {
		t.Errorf("status %d, stderr %q: want 130 and %q", code, errOut, want)
	}
}

// An eval stopped part way leaves its progress where the games stopped,
// saying it stopped, not at 100% or finished.
func TestEvalStoppedProgress(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	args := []string{"eval", "--player", "random", "--player", "greedy", "--games", "6", "--seed", "3", "--parallel", "1", "--out", dir}
	if _, errOut, code := runStoppedCLI(append(args, "--quiet")...); code != 130 {
		t.Fatalf("stopped at once: status %d: %s", code, errOut)
	}
	// Two games played before, as a stop after them leaves them.
	var text []byte
	oneGo := filepath.Join(t.TempDir(), "one-go")
	if _, errOut, code := runBotCLI("", "eval", "--player", "random", "--player", "greedy", "--games", "6", "--seed", "3", "--parallel", "1", "--out", oneGo, "--quiet"); code != 0 {
		t.Fatalf("in one go: %s", errOut)
	}
	data, err := os.ReadFile(filepath.Join(oneGo, report.GamesFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.SplitAfterN(data, []byte("\n"), 3)[:2] {
		text = append(text, line...)
	}
	appendTo(t, filepath.Join(dir, report.GamesJournal), string(text))
	_, errOut, code := runStoppedCLI(append(args, "--resume")...)
	if code != 130 || !strings.Contains(errOut, "eval: stopped (interrupted) after 2/6 games") {
		t.Errorf("status %d, stderr %q: want 130 and the bar stopped at 2/6", code, errOut)
	}
	if strings.Contains(errOut, "100%") || strings.Contains(errOut, "eval: 2 games in") {
		t.Errorf("stderr %q: the bar says finished", errOut)
	}
}

// A finished result is never replaced without being asked: eval and
// ladder over an --out holding one, and export over an existing file, are
// refused with status 2 and the way out, which, taken as printed, works.
func TestFinishedResultNotReplaced(t *testing.T) {
	run := fakeRun(t, 1)
	base := t.TempDir()
	player, onnxFile := filepath.Join(base, "player.dsnn"), filepath.Join(base, "net.onnx")
	for _, tc := range []struct {
		name string
		args []string
		file string
		says string
	}{
		{"eval", []string{"eval", "--player", "random", "--player", "greedy", "--games", "2", "--out", filepath.Join(base, "eval"), "--quiet"},
			filepath.Join(base, "eval", report.ResultsFile), filepath.Join(base, "eval") + " holds a finished eval (" + report.ResultsFile + ")"},
		{"ladder", []string{"ladder", "--run", run, "--vs", "random", "--games", "2", "--sims", "2", "--quiet"},
			filepath.Join(run, report.LadderResultsFile), run + " holds a finished ladder (" + report.LadderResultsFile + ")"},
		{"export", []string{"export", "--checkpoint", filepath.Join("..", "..", "train", "testdata", "run-v1"), "--out", player},
			player, "--out " + player + " exists"},
		{"export --format onnx", []string{"export", "--format", "onnx", "--checkpoint", filepath.Join("..", "..", "train", "testdata", "run-v1"), "--out", onnxFile},
			onnxFile, "--out " + onnxFile + " exists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, errOut, code := runBotCLI("", tc.args...); code != 0 {
				t.Fatalf("the first time: status %d: %s", code, errOut)
			}
			before, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			_, errOut, code := runBotCLI("", tc.args...)
			want := tc.says + ": choose another --out, or remove " + tc.file + " to replace it"
			if code != 2 || !strings.Contains(errOut, want) {
				t.Errorf("again: status %d, stderr %q: want 2 and %q", code, errOut, want)
			}
			if after, _ := os.ReadFile(tc.file); !bytes.Equal(after, before) {
				t.Errorf("%s changed", tc.file)
			}
			if err := os.Remove(tc.file); err != nil {
				t.Fatal(err)
			}
			if _, errOut, code := runBotCLI("", tc.args...); code != 0 {
				t.Errorf("once %s is removed: status %d: %s", tc.file, code, errOut)
			}
		})
	}
}

// Errors name the flags the user typed.
func TestErrorsNameFlags(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	for _, tc := range []struct {
		args []string
		want string
		not  string
	}{
		{[]string{"export", "--checkpoint", missing, "--out", missing + ".dsnn"}, "--checkpoint " + missing + ": ", "model "},
		{[]string{"export", "--format", "onnx", "--checkpoint", missing, "--out", missing + ".onnx"}, "--checkpoint " + missing + ": ", "model "},
		{[]string{"bench", "mcts", "--seconds", "-1"}, "deathstacks bench: --seconds is -1: want more than 0\n", "depth"},
		{[]string{"bench", "mcts", "--sims", "0"}, "deathstacks bench: --sims is 0: want 1 or more\n", "seconds"},
		{[]string{"bench", "mcts", "--simulations", "0", "--depth", "0"}, "--simulations is 0: want 1 or more\n--depth is 0: want 1 or more\n", "seconds"},
		{[]string{"bench", "nn", "--clients", "0"}, "deathstacks bench: --clients is 0: want 1 or more\n", "per-call"},
		{[]string{"bench", "foo"}, "deathstacks bench: unknown kind foo", ""},
		{[]string{"serve", "--addr", "127.0.0.1:99999"}, "--addr \"127.0.0.1:99999\": ", ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, errOut, code := runBotCLI("", tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.want) || (tc.not != "" && strings.Contains(errOut, tc.not)) {
				t.Errorf("status %d, stderr %q: want 2 and %q, without %q", code, errOut, tc.want, tc.not)
			}
		})
	}
	// --simulations is the flag; --sims only its alias.
	for _, cmd := range [][]string{{"ladder"}, {"export"}, {"bench", "mcts"}} {
		_, help, _ := runBotCLI("", append(cmd, "--help")...)
		text, _, _ := strings.Cut(help, "\nflags:\n")
		if strings.Contains(text, "--sims") {
			t.Errorf("%v --help speaks of --sims before its flags: %q", cmd, text)
		}
	}
}

// inspect describes every file of a run directory, and says what a file
// it does not describe is not.
func TestInspectRunFiles(t *testing.T) {
	run := filepath.Join("..", "..", "train", "testdata", "run-v1")
	plotted := fakeRun(t, 2)
	if _, errOut, code := runBotCLI("", "plot", "--run", plotted); code != 0 {
		t.Fatalf("plot: %s", errOut)
	}
	for _, tc := range []struct {
		file string
		want []string
	}{
		{filepath.Join(run, "metrics.jsonl"), []string{"kind: metrics\n", "iterations: 1 (1 to 1)\n", "last loss: policy 3.962, value 0.027"}},
		{filepath.Join(run, runconfig.File), []string{"kind: run config\n", "config: fixture\n", "target: 1 iteration\n"}},
		{filepath.Join(plotted, "loss.png"), []string{"kind: plot\n", "image: PNG, ", "shows: training: each loss"}},
		{filepath.Join(run, "nets", "net-000001.dsnn"), []string{"kind: network (checksum OK)\n"}},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			out, errOut, code := runBotCLI("", "inspect", tc.file)
			if code != 0 {
				t.Fatalf("status %d: %s", code, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	readme := filepath.Join("..", "..", "README.md")
	if _, errOut, code := runBotCLI("", "inspect", readme); code != 2 || !strings.Contains(errOut, "not a deathstacks network file, nor a run's metrics.jsonl, config.yaml or PNG chart") {
		t.Errorf("inspect README.md: status %d, stderr %q: want 2 and what it is not", code, errOut)
	}
}

// A run at its time limit says there is nothing left to do and how to
// train further: that command, as printed, raises the limit and trains on
// to the run's target. The limit given with --time-limit is kept by the
// run, as --iterations is.
func TestTrainResumeAtTimeLimit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, stderr, code := runBotCLI("", "train", "--config", "smoke", "--iterations", "1", "--out", dir, "--quiet"); code != 0 {
		t.Fatalf("first iteration: status %d, stderr %q", code, stderr)
	}
	// The run has used more than a nanosecond of training time.
	stdout, stderr, code := runBotCLI("", "train", "--resume", "--out", dir, "--iterations", "2", "--time-limit", "1ns", "--quiet")
	if code != 0 || !strings.Contains(stdout, "done: nothing left to do: the time limit (1ns) is reached after 1 iteration in "+dir) {
		t.Fatalf("at the time limit: status %d, stderr %q, stdout:\n%s\nwant 0 and nothing left to do", code, stderr, stdout)
	}
	further := hintCommand(t, stdout, "such as:")
	if want := []string{"train", "--resume", "--out", dir, "--time-limit", "1m0s"}; fmt.Sprint(further) != fmt.Sprint(want) {
		t.Fatalf("the hint to train further: %v, want %v", further, want)
	}
	stdout, stderr, code = runBotCLI("", further...)
	if code != 0 || !strings.Contains(stdout, "done: 2 iterations in "+dir) {
		t.Errorf("%v: status %d, stderr %q, stdout:\n%s\nwant 0 and the run at its target, 2", further, code, stderr, stdout)
	}
}

func TestLongerLimit(t *testing.T) {
	for _, tc := range []struct{ limit, want time.Duration }{
		{time.Nanosecond, time.Minute},
		{55 * time.Minute, 83 * time.Minute},
		{2 * time.Hour, 3 * time.Hour},
	} {
		t.Run(tc.limit.String(), func(t *testing.T) {
			if got := longerLimit(tc.limit); got != tc.want {
				t.Errorf("longerLimit(%v) = %v, want %v", tc.limit, got, tc.want)
			}
		})
	}
}
