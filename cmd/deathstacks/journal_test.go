package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/report"
	"github.com/deathstacks/deathstacks/train/table"
	"github.com/deathstacks/deathstacks/train/testctx"
)

// runStoppedCLI runs a command line in-process as a Ctrl-C at its start
// would stop it.
func runStoppedCLI(args ...string) (stdout, stderr string, code int) {
	return runSignalledCLI(syscall.SIGINT, args...)
}

// runSignalledCLI runs a command line in-process as the signal sig at its
// start would stop it.
func runSignalledCLI(sig syscall.Signal, args ...string) (stdout, stderr string, code int) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stopSignal{sig})
	var out, errOut bytes.Buffer
	code = run(args, stdio{in: strings.NewReader(""), out: &out, err: &errOut, stop: ctx})
	return out.String(), errOut.String(), code
}

// readGames reads a games file (games.jsonl, a journal's games) with the
// move times cleared, as they are all that differs between two plays.
func readGames(t *testing.T, path string) []arena.GameRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []arena.GameRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r arena.GameRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		r.MoveMS = nil
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// resumeCase is a command whose games a stop at the start cuts, and the
// files of the finished command to compare.
type resumeCase struct {
	name     string
	args     func(out string) []string
	total    int
	journal  string
	games    string // the finished games file
	results  string // the finished results file
	compare  func(t *testing.T, got, want string)
	finished string // the word of "holds a finished ..."
}

// The games a stopped eval or ladder left in its journal (those of the
// same command run in one go, as a kill leaves them: some, then a torn
// line), continued with --resume, give the same results as the command run
// in one go; the refusals on the way have status 2.
func TestResumeEqualsOneGo(t *testing.T) {
	run, first, second := fakeRun(t, 2), fakeRun(t, 1), fakeRun(t, 1)
	compareLadder := func(t *testing.T, got, want string) {
		var g, w struct {
			Snapshots []struct {
				Elo  float64    `json:"elo"`
				CI95 [2]float64 `json:"ci95"`
			} `json:"snapshots"`
			Pairs []report.PairResult `json:"pairs"`
		}
		readJSON(t, got, &g)
		readJSON(t, want, &w)
		if !reflect.DeepEqual(g, w) || len(g.Snapshots) != 2 {
			t.Errorf("ladder.json after resuming:\n%+v\nwant, as in one go:\n%+v", g, w)
		}
	}
	cases := []resumeCase{
		{
			name: "eval",
			args: func(out string) []string {
				return []string{"eval", "--player", "random", "--player", "greedy", "--player", "alphabeta:depth=1",
					"--games", "2", "--seed", "3", "--max-plies", "100", "--parallel", "2", "--out", out, "--quiet"}
			},
			total: 6, journal: report.GamesJournal, games: report.GamesFile, results: report.ResultsFile, finished: "eval",
			compare: func(t *testing.T, got, want string) {
				if g, w := readResults(t, got), readResults(t, want); !reflect.DeepEqual(g, w) {
					t.Errorf("results.json after resuming:\n%+v\nwant, as in one go:\n%+v", g, w)
				}
			},
		},
		{
			name: "ladder",
			args: func(out string) []string {
				return []string{"ladder", "--run", run, "--vs", "random", "--games", "2", "--sims", "2", "--parallel", "1", "--seed", "3", "--out", out, "--quiet"}
			},
			total: 6, journal: report.LadderGamesJournal, games: report.LadderGamesFile, results: report.LadderResultsFile, finished: "ladder",
			compare: compareLadder,
		},
		{
			// Each run's snapshot against random, then one against the other.
			name: "ladder of two runs",
			args: func(out string) []string {
				return []string{"ladder", "--run", "a=" + first, "--run", "b=" + second, "--vs", "random", "--games", "2", "--sims", "2", "--parallel", "1", "--seed", "3", "--out", out, "--quiet"}
			},
			total: 6, journal: report.LadderGamesJournal, games: report.LadderGamesFile, results: report.LadderResultsFile, finished: "ladder",
			compare: compareLadder,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			oneGo := filepath.Join(t.TempDir(), "one-go")
			if _, errOut, code := runBotCLI("", tc.args(oneGo)...); code != 0 {
				t.Fatalf("in one go: status %d: %s", code, errOut)
			}
			if _, err := os.Stat(filepath.Join(oneGo, tc.journal)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a finished %s left its journal (%v)", tc.name, err)
			}
			want := readGames(t, filepath.Join(oneGo, tc.games))
			for _, k := range []int{1, 4} {
				t.Run(fmt.Sprintf("cut after %d", k), func(t *testing.T) {
					dir := filepath.Join(t.TempDir(), "cut")
					args := tc.args(dir)
					_, errOut, code := runStoppedCLI(args...)
					again := commandLine(args[0], append(args[1:], "--resume"))
					if code != 130 || !strings.Contains(errOut, "stopped after 0 of 6 games; continue with: "+again+"\n") {
						t.Fatalf("stopped at once: status %d, stderr %q: want 130 and the command that continues", code, errOut)
					}
					// The games a kill left: k whole, one torn.
					line, err := json.Marshal(want[k])
					if err != nil {
						t.Fatal(err)
					}
					var text []byte
					for _, r := range want[:k] {
						b, _ := json.Marshal(r)
						text = append(append(text, b...), '\n')
					}
					appendTo(t, filepath.Join(dir, tc.journal), string(text)+string(line[:len(line)/2]))

					if _, errOut, code := runBotCLI("", args...); code != 2 || !strings.Contains(errOut, dir+" holds an unfinished "+tc.finished+" ("+table.Count(k, "game", "games")+" played of 6): continue it with the same command and --resume, or choose another --out") {
						t.Errorf("without --resume: status %d, stderr %q: want 2 and a refusal", code, errOut)
					}
					bad := append(append([]string(nil), args...), "--resume", "--seed", "4")
					if _, errOut, code := runBotCLI("", bad...); code != 2 || !strings.Contains(errOut, `seed is "4" here but "3" in the games played so far, which this command started: `+commandLine(args[0], args[1:])) {
						t.Errorf("--resume with another seed: status %d, stderr %q: want 2, the seeds and the first command", code, errOut)
					}
					resumed := append(append([]string(nil), args...), "--resume", "--parallel", "2")
					out, errOut, code := runBotCLI("", resumed...)
					if code != 0 {
						t.Fatalf("--resume: status %d: %s", code, errOut)
					}
					if !strings.Contains(out, ", "+table.Count(k, "game", "games")+" played before\n") {
						t.Errorf("--resume does not say how many games it found:\n%s", out)
					}
					if got := readGames(t, filepath.Join(dir, tc.games)); !reflect.DeepEqual(got, want) {
						t.Errorf("%s after resuming differs from the one played in one go", tc.games)
					}
					tc.compare(t, filepath.Join(dir, tc.results), filepath.Join(oneGo, tc.results))
					if _, err := os.Stat(filepath.Join(dir, tc.journal)); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("the journal is still there after resuming (%v)", err)
					}
					if _, errOut, code := runBotCLI("", resumed...); code != 2 || !strings.Contains(errOut, dir+" holds a finished "+tc.finished+"; nothing to resume") {
						t.Errorf("--resume once finished: status %d, stderr %q", code, errOut)
					}
				})
			}
		})
	}
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// The report of a resumed eval names the command that started it, which
// replays its games, not the one with --resume.
func TestResumedReportCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	args := []string{"eval", "--player", "random", "--player", "greedy", "--games", "2", "--out", dir, "--quiet"}
	if _, _, code := runStoppedCLI(args...); code != 130 {
		t.Fatalf("stopped: status %d", code)
	}
	if _, errOut, code := runBotCLI("", append(args, "--resume")...); code != 0 {
		t.Fatalf("--resume: status %d: %s", code, errOut)
	}
	var got struct {
		Command string `json:"command"`
	}
	readJSON(t, filepath.Join(dir, report.ResultsFile), &got)
	if want := commandLine("eval", args[1:]); got.Command != want {
		t.Errorf("results.json's command %q, want %q", got.Command, want)
	}
}

// A ladder of several runs resumes only over the same runs: the journal
// names them all, and a resume with a run fewer, another or in another
// order is refused with status 2, naming what differs.
func TestLadderResumeOtherRuns(t *testing.T) {
	a, b, c := fakeRun(t, 1), fakeRun(t, 1), fakeRun(t, 1)
	dir := filepath.Join(t.TempDir(), "out")
	ladder := func(runs ...string) []string {
		args := []string{"ladder"}
		for _, r := range runs {
			args = append(args, "--run", r)
		}
		return append(args, "--vs", "random", "--games", "2", "--sims", "2", "--out", dir, "--quiet")
	}
	if _, errOut, code := runStoppedCLI(ladder("a="+a, "b="+b)...); code != 130 {
		t.Fatalf("stopped: status %d: %s", code, errOut)
	}
	for _, tc := range []struct {
		name string
		runs []string
		want string
	}{
		{"one run of the two", []string{"a=" + a}, `runs is "1" here but "2"`},
		{"a run more", []string{"a=" + a, "b=" + b, "c=" + c}, `runs is "3" here but "2"`},
		{"the runs swapped", []string{"b=" + b, "a=" + a}, `run 1 name is "b" here but "a"`},
		{"a run renamed", []string{"a=" + a, "c=" + b}, `run 2 name is "c" here but "b"`},
		{"another run", []string{"a=" + a, "b=" + c}, `run 2 dir is "` + c + `" here but "` + b + `"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runBotCLI("", append(ladder(tc.runs...), "--resume")...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("status %d, stderr %q: want 2 and %q", code, errOut, tc.want)
			}
		})
	}
	if _, errOut, code := runBotCLI("", append(ladder("a="+a, "b="+b), "--resume")...); code != 0 {
		t.Errorf("resumed with the same runs: status %d: %s", code, errOut)
	}
}

func TestResumeRefusals(t *testing.T) {
	base := t.TempDir()
	missing := filepath.Join(base, "missing")
	corrupt := filepath.Join(base, "corrupt")
	if err := os.MkdirAll(corrupt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(corrupt, report.GamesJournal), []byte(`{"journal":"eval"}`+"\n{\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := fakeRun(t, 1)
	two := []string{"--player", "random", "--player", "greedy", "--games", "2", "--quiet"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"eval --resume without --out", append([]string{"eval", "--resume"}, two...), "--resume: give the --out DIR of the eval to continue"},
		{"eval --resume in a missing directory", append([]string{"eval", "--resume", "--out", missing}, two...), "no unfinished eval in " + missing},
		{"eval --resume in an empty directory", append([]string{"eval", "--resume", "--out", base}, two...), "no unfinished eval in " + base},
		{"eval --resume over a bad journal", append([]string{"eval", "--resume", "--out", corrupt}, two...), filepath.Join(corrupt, report.GamesJournal) + ":2: not a game record"},
		{"eval over a bad journal", append([]string{"eval", "--out", corrupt}, two...), corrupt + " holds an unfinished eval whose journal does not read"},
		{"ladder --resume with nothing", []string{"ladder", "--run", run, "--resume"}, "no unfinished ladder in " + run},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runBotCLI("", tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("status %d, stderr %q: want 2 and %q", code, errOut, tc.want)
			}
		})
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Error("--resume created the missing directory")
	}
}

// TestEvalStopsOnSignal runs the built binary: SIGINT or SIGTERM during an
// eval stops it promptly with status 130 or 143, keeping the games
// finished, and names the command that continues it.
func TestEvalStopsOnSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			args := []string{"eval", "--player", "mcts:sims=300", "--player", "random", "--games", "40", "--parallel", "1", "--out", dir, "--quiet"}
			c := exec.Command(bin, args...)
			var errOut bytes.Buffer
			c.Stderr = &errOut
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			journal := filepath.Join(dir, report.GamesJournal)
			// No budgets: a game that never comes, or an eval that does
			// not stop, fails the test when the test's time runs out.
			ctx := testctx.Context(t)
			for {
				if data, _ := os.ReadFile(journal); bytes.Count(data, []byte("\n")) >= 2 {
					break
				}
				select {
				case <-ctx.Done():
					c.Process.Kill()
					c.Wait()
					t.Fatalf("no game in the journal when the test's time ran out: %s", errOut.String())
				case <-time.After(20 * time.Millisecond):
				}
			}
			sent := time.Now()
			if err := c.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- c.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-ctx.Done():
				c.Process.Kill()
				<-done
				t.Fatalf("still playing %v after the signal, when the test's time ran out", time.Since(sent).Round(time.Second))
			}
			t.Logf("stopped %v after the signal", time.Since(sent).Round(time.Millisecond))
			var exit *exec.ExitError
			if want := 128 + int(sig); !errors.As(err, &exit) || exit.ExitCode() != want {
				t.Fatalf("exit %v, want status %d; stderr %q", err, want, errOut.String())
			}
			_, played, rerr := arena.ReadJournal(journal)
			if rerr != nil {
				t.Fatal(rerr)
			}
			again := commandLineOf(t, bin, "eval", append(args[1:], "--resume"))
			if want := fmt.Sprintf("deathstacks eval: stopped after %d of 40 games", len(played)) + "; continue with: " + again + "\n"; !strings.HasSuffix(errOut.String(), want) {
				t.Errorf("stderr %q: want it to end with %q", errOut.String(), want)
			}
			if !strings.Contains(errOut.String(), "stopping: the games in progress are dropped") {
				t.Errorf("stderr %q: nothing said on the signal", errOut.String())
			}
		})
	}
}
