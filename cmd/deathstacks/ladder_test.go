package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// fakeRun writes a run directory as training leaves it, with the smoke
// config and a tiny untrained network for each of iterations 1 to n, the
// training time of each in metrics.jsonl.
func fakeRun(t *testing.T, n int) string {
	t.Helper()
	return fakeRunOf(t, n, configs.Smoke)
}

// fakeRunOf writes a run as fakeRun does, with the given config.
func fakeRunOf(t *testing.T, n int, config []byte) string {
	t.Helper()
	run := t.TempDir()
	if err := os.WriteFile(filepath.Join(run, runconfig.File), config, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(run, "nets"), 0o755); err != nil {
		t.Fatal(err)
	}
	tiny := model.Config{Blocks: 1, Channels: 4, ValuePlanes: 1, ValueHidden: 4}
	for it := 1; it <= n; it++ {
		net, err := model.New(tiny, rand.New(rand.NewPCG(uint64(it), 7)))
		if err != nil {
			t.Fatal(err)
		}
		if err := net.Save(filepath.Join(run, "nets", fmt.Sprintf("net-%06d.dsnn", it))); err != nil {
			t.Fatal(err)
		}
		if err := metrics.Append(filepath.Join(run, metrics.File), metrics.Iteration{Iteration: it, ElapsedSec: 90 * float64(it)}); err != nil {
			t.Fatal(err)
		}
	}
	return run
}

func TestLadder(t *testing.T) {
	run := fakeRun(t, 3)
	out, errOut, code := runBotCLI("", "ladder", "--run", run, "--games", "2", "--sims", "4", "--parallel", "2", "--every", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Every 2nd iteration and the latest: 2 and 3, each against random,
	// greedy and the anchor, 3 against 2, the baselines against each
	// other: 10 pairs of 2 games.
	for _, want := range []string{"ladder: 2 snapshots (iterations 2 to 3), 3 baselines: 20 games", "Snapshots: ", "Players: ", "relative to anchor = 0",
		"wrote ladder.json, ladder.md, ladder-games.jsonl and ladder.png in " + run} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !hasRow(out, "2", "3m00s", "iter-000002") || !hasRow(out, "3", "4m30s", "iter-000003") {
		t.Errorf("output lacks the snapshot rows:\n%s", out)
	}
	if !strings.Contains(errOut, "ladder: 20 games in") {
		t.Errorf("stderr %q: want the progress line", errOut)
	}
	var res struct {
		Run       string `json:"run"`
		Anchor    string `json:"anchor"`
		TimeAxis  string `json:"time_axis"`
		Snapshots []struct {
			Iteration  int        `json:"iteration"`
			ElapsedSec float64    `json:"elapsed_sec"`
			Elo        float64    `json:"elo"`
			CI95       [2]float64 `json:"ci95"`
		} `json:"snapshots"`
		Players []struct {
			Spec string `json:"spec"`
		} `json:"players"`
		Pairs []struct{ A, B string } `json:"pairs"`
	}
	data := readJSON(t, filepath.Join(run, "ladder.json"), &res)
	if res.Run != run || res.Anchor != "anchor" || res.TimeAxis != "training time" || len(res.Snapshots) != 2 || len(res.Players) != 5 || len(res.Pairs) != 10 {
		t.Fatalf("ladder.json %s", data)
	}
	for i, s := range res.Snapshots {
		if s.Iteration != i+2 || s.ElapsedSec != 90*float64(s.Iteration) || !(s.CI95[0] <= s.Elo && s.Elo <= s.CI95[1]) {
			t.Errorf("snapshot %+v", s)
		}
	}
	for _, name := range []string{"ladder.md", "ladder-games.jsonl", "ladder.png"} {
		if info, err := os.Stat(filepath.Join(run, name)); err != nil || info.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// --out puts the files elsewhere; --vs replaces the baselines, and without
// random the first is the anchor.
func TestLadderOutAndBaselines(t *testing.T) {
	run, dir := fakeRun(t, 2), filepath.Join(t.TempDir(), "ladder")
	out, errOut, code := runBotCLI("", "ladder", "--run", run, "--out", dir, "--vs", "alphabeta:depth=1", "--games", "2", "--sims", "2", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "1 baseline: 6 games") || !strings.Contains(out, "relative to alphabeta:depth=1 = 0") {
		t.Errorf("output:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "ladder.json")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(run, "ladder.json")); err == nil {
		t.Error("ladder.json written into the run despite --out")
	}
}

// --time alone searches each move for that time, with no simulation limit.
func TestLadderTime(t *testing.T) {
	run, dir := fakeRun(t, 1), filepath.Join(t.TempDir(), "ladder")
	if _, errOut, code := runBotCLI("", "ladder", "--run", run, "--out", dir, "--vs", "random", "--games", "2", "--time", "5ms", "--quiet"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Simulations int     `json:"simulations"`
		TimeMS      float64 `json:"time_ms"`
	}
	readJSON(t, filepath.Join(dir, "ladder.json"), &got)
	if got.Simulations != 0 || got.TimeMS != 5 {
		t.Errorf("ladder.json: %d simulations, %v ms: want 0 and 5", got.Simulations, got.TimeMS)
	}
}

func TestLadderErrors(t *testing.T) {
	run := fakeRun(t, 1)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no run", nil, "--run is required"},
		{"not a run", []string{"--run", t.TempDir()}, runconfig.File},
		{"missing run", []string{"--run", filepath.Join(run, "missing")}, "no such file"},
		{"bad baseline", []string{"--run", run, "--vs", "minimax"}, "random, greedy, alphabeta, mcts, az"},
		{"no games", []string{"--run", run, "--games", "0"}, "--games"},
		{"no parallel", []string{"--run", run, "--parallel", "0"}, "--parallel"},
		{"every 0", []string{"--run", run, "--every", "0"}, "--every"},
		{"no simulations", []string{"--run", run, "--sims", "0"}, "--sims"},
		{"negative time", []string{"--run", run, "--time", "-1s"}, "--time is -1s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runBotCLI("", append([]string{"ladder"}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q: want 2 and %q", code, errOut, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(run, "missing")); err == nil {
		t.Error("a missing run directory was created")
	}
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, runconfig.File), configs.Smoke, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runBotCLI("", "ladder", "--run", empty); code != 2 || !strings.Contains(errOut, "no network snapshots") {
		t.Errorf("a run without snapshots: exit %d, stderr %q", code, errOut)
	}
}

// smokeWith returns the smoke config with old replaced by new.
func smokeWith(t *testing.T, old, new string) []byte {
	t.Helper()
	if !bytes.Contains(configs.Smoke, []byte(old)) {
		t.Fatalf("the smoke config has no %q", old)
	}
	return bytes.Replace(configs.Smoke, []byte(old), []byte(new), 1)
}

// Two runs in one ladder: their snapshots named after the runs, each run
// with its own search settings, the latest of each against the other's,
// one fit, and the files with the runs in them.
func TestLadderSeveralRuns(t *testing.T) {
	long, short := fakeRun(t, 2), fakeRunOf(t, 3, smokeWith(t, "search:\n", "search:\n  c_puct: 2\n"))
	dir := filepath.Join(t.TempDir(), "ladder")
	out, errOut, code := runBotCLI("", "ladder", "--run", "long="+long, "--run", "short="+short, "--vs", "random",
		"--games", "2", "--sims", "2", "--parallel", "2", "--out", dir, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// long: 1 and 2 against random, 1 against 2; short: 1 to 3 against
	// random, 1 against 2, 2 against 3; long 2 against short 3: 9 pairs.
	if want := "ladder: 2 runs, 5 snapshots (long: iterations 1 to 2; short: iterations 1 to 3), 1 baseline: 18 games, 2 at once\n"; !strings.HasPrefix(out, want) {
		t.Errorf("output starts %q, want %q", strings.SplitAfter(out, "\n")[0], want)
	}
	if !hasRow(out, "long", "2", "3m00s", "long/iter-000002") || !hasRow(out, "short", "3", "4m30s", "short/iter-000003") {
		t.Errorf("output lacks the snapshot rows with their runs:\n%s", out)
	}
	var res struct {
		Run  string `json:"run"`
		Runs []struct {
			Name, Dir, Search string
		} `json:"runs"`
		Snapshots []struct {
			Name string `json:"name"`
			Run  string `json:"run"`
		} `json:"snapshots"`
		Players []struct {
			Name string `json:"name"`
			Spec string `json:"spec"`
		} `json:"players"`
		Pairs []struct{ A, B string } `json:"pairs"`
	}
	data := readJSON(t, filepath.Join(dir, "ladder.json"), &res)
	if res.Run != long || len(res.Runs) != 2 || res.Runs[0].Name != "long" || res.Runs[1].Dir != short || len(res.Snapshots) != 5 || len(res.Players) != 6 || len(res.Pairs) != 9 {
		t.Fatalf("ladder.json %s", data)
	}
	if last := res.Pairs[8]; last.A != "long/iter-000002" || last.B != "short/iter-000003" {
		t.Errorf("the last pair is %s against %s: want the runs' latest", last.A, last.B)
	}
	if !strings.Contains(res.Runs[1].Search, "c_puct=2,") || strings.Contains(res.Runs[0].Search, "c_puct=2,") {
		t.Errorf("runs' search %q and %q: want short's with c_puct 2, long's without", res.Runs[0].Search, res.Runs[1].Search)
	}
	for _, p := range res.Players {
		if strings.HasPrefix(p.Name, "short/") != strings.Contains(p.Spec, "c_puct=2,") {
			t.Errorf("%s plays %s: want its run's search", p.Name, p.Spec)
		}
	}
	for _, s := range res.Snapshots {
		if !strings.HasPrefix(s.Name, s.Run+"/iter-") {
			t.Errorf("snapshot %s of run %q", s.Name, s.Run)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "ladder.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| run | iteration |") || !strings.Contains(string(md), "deathstacks ladder --run long="+long+" --run short="+short) {
		t.Errorf("ladder.md lacks the run column or the command:\n%s", md)
	}
	for _, name := range []string{"ladder-games.jsonl", "ladder.png"} {
		if info, err := os.Stat(filepath.Join(dir, name)); err != nil || info.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestLadderSeveralRunsErrors(t *testing.T) {
	run, other := fakeRun(t, 1), fakeRun(t, 1)
	longer := fakeRunOf(t, 1, smokeWith(t, "max_plies: 60", "max_plies: 80"))
	openings := fakeRunOf(t, 1, smokeWith(t, "opening_plies: 2", "opening_plies: 3"))
	out := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"one directory twice", []string{"--run", run, "--run", run, "--out", out}, "--run: two runs are called " + filepath.Base(run) + " (" + run + " and " + run + "): name each with --run NAME=DIR"},
		{"one name twice", []string{"--run", "a=" + run, "--run", "a=" + other, "--out", out}, "two runs are called a"},
		{"no name", []string{"--run", "=" + run}, `--run "=` + run + `": want NAME=DIR or DIR`},
		{"no directory", []string{"--run", "a="}, `--run "a=": want NAME=DIR or DIR`},
		{"no --out", []string{"--run", "a=" + run, "--run", "b=" + other}, "--out is required with several runs"},
		{"other rules", []string{"--run", "a=" + run, "--run", "b=" + longer, "--out", out}, "runs a (" + run + ") and b (" + longer + ") differ in env.rules.max_plies: 60 and 80"},
		{"other openings", []string{"--run", "a=" + run, "--run", "b=" + openings, "--out", out}, "runs a (" + run + ") and b (" + openings + ") differ in eval.opening_plies: 2 and 3"},
		{"a run that is not one", []string{"--run", "a=" + run, "--run", "b=" + t.TempDir(), "--out", out}, runconfig.File},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runBotCLI("", append([]string{"ladder"}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q: want 2 and %q", code, errOut, tc.want)
			}
		})
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("refused ladders left %d files in --out", len(entries))
	}
}

func TestParseRunArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []runArg
	}{
		{[]string{"checkpoints/long"}, []runArg{{"long", "checkpoints/long"}}},
		{[]string{"checkpoints/long/"}, []runArg{{"long", "checkpoints/long/"}}},
		{[]string{"a=checkpoints/long", "b=checkpoints/long"}, []runArg{{"a", "checkpoints/long"}, {"b", "checkpoints/long"}}},
		{[]string{"runs/x=y", "./p=q"}, []runArg{{"x=y", "runs/x=y"}, {"p=q", "./p=q"}}},
		{[]string{"long=runs/a", "runs/b"}, []runArg{{"long", "runs/a"}, {"b", "runs/b"}}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			got, err := parseRunArgs(tc.args)
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("parseRunArgs = %v (%v), want %v", got, err, tc.want)
			}
		})
	}
}
