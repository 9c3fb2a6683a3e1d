package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/mcts/players"
)

// evalResults is the part of results.json the issue fixes, and a little
// more.
type evalResults struct {
	Anchor  string `json:"anchor"`
	Games   int    `json:"games"`
	Players []struct {
		Name string     `json:"name"`
		Spec string     `json:"spec"`
		Elo  float64    `json:"elo"`
		CI95 [2]float64 `json:"ci95"`
	} `json:"players"`
	Pairs []struct {
		A      string `json:"a"`
		B      string `json:"b"`
		Wins   int    `json:"wins"`
		Draws  int    `json:"draws"`
		Losses int    `json:"losses"`
	} `json:"pairs"`
}

func readResults(t *testing.T, path string) evalResults {
	t.Helper()
	var res evalResults
	readJSON(t, path, &res)
	return res
}

// readJSON decodes the JSON file at path into v and returns the file.
func readJSON(t *testing.T, path string, v any) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return data
}

// hasRow reports whether some line of text starts with the given words.
func hasRow(text string, words ...string) bool {
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) >= len(words) && slices.Equal(f[:len(words)], words) {
			return true
		}
	}
	return false
}

func TestEval(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	out, errOut, code := runBotCLI("", "eval", "--player", "random", "--player", "greedy", "--player", "alphabeta:depth=1",
		"--games", "6", "--parallel", "2", "--seed", "4", "--out", dir, "--max-plies", "200")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"eval: 3 players, 3 pairs, 6 games each: 18 games",
		"Pairs: ", "Players: ", "relative to random = 0", "anchor", "wrote results.json, report.md, games.jsonl and elo.png in " + dir,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !hasRow(out, "A", "B", "games", "W", "D", "L", "score") || !hasRow(out, "random", "greedy", "6") ||
		!hasRow(out, "#", "player", "Elo", "±95%", "games", "W", "D", "L", "score") {
		t.Errorf("output lacks the tables' heads or the random-greedy row:\n%s", out)
	}
	if !strings.Contains(errOut, "eval: 18 games in") {
		t.Errorf("stderr %q: want the progress line", errOut)
	}
	res := readResults(t, filepath.Join(dir, "results.json"))
	if res.Anchor != "random" || res.Games != 18 || len(res.Players) != 3 || len(res.Pairs) != 3 {
		t.Fatalf("results %+v", res)
	}
	for _, p := range res.Pairs {
		if p.Wins+p.Draws+p.Losses != 6 {
			t.Errorf("pair %+v: want 6 games", p)
		}
	}
	for _, p := range res.Players {
		if !(p.CI95[0] <= p.Elo && p.Elo <= p.CI95[1]) {
			t.Errorf("player %+v: Elo outside its interval", p)
		}
		if p.Spec == "greedy" && p.Elo <= 0 {
			t.Errorf("greedy Elo %v: want above random's 0", p.Elo)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Players", "## Pairs", "| random | greedy | 6 |", "deathstacks eval --player random --player greedy"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	games, err := os.ReadFile(filepath.Join(dir, "games.jsonl"))
	if err != nil || strings.Count(string(games), "\n") != 18 {
		t.Errorf("games.jsonl: %d lines (%v), want 18", strings.Count(string(games), "\n"), err)
	}
	if info, err := os.Stat(filepath.Join(dir, "elo.png")); err != nil || info.Size() == 0 {
		t.Errorf("elo.png: %v", err)
	}
}

// Players get unique names: NAME=SPEC names one, and a spec given twice
// gets #2. Without random, the first player is the anchor.
func TestEvalNames(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runBotCLI("", "eval", "--player", "greedy", "--player", "greedy", "--player", "ab=alphabeta:depth=1",
		"--player", "greedy#2=random", "--games", "2", "--out", dir, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if errOut != "" {
		t.Errorf("--quiet: stderr %q", errOut)
	}
	if !strings.Contains(out, "relative to greedy#2#2 = 0") {
		t.Errorf("output does not name the renamed random player as the anchor:\n%s", out)
	}
	res := readResults(t, filepath.Join(dir, "results.json"))
	specs := map[string]string{}
	for _, p := range res.Players {
		specs[p.Name] = p.Spec
	}
	want := map[string]string{"greedy": "greedy", "greedy#2": "greedy", "ab": "alphabeta:depth=1", "greedy#2#2": "random"}
	if len(specs) != len(want) {
		t.Fatalf("players %v, want %v", specs, want)
	}
	for name, spec := range want {
		if specs[name] != spec {
			t.Errorf("player %s: spec %q, want %q", name, specs[name], spec)
		}
	}
}

// Without --out, eval writes into a new directory under checkpoints/.
func TestEvalDefaultOut(t *testing.T) {
	t.Chdir(t.TempDir())
	out, errOut, code := runBotCLI("", "eval", "--player", "random", "--player", "greedy", "--games", "2", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	dirs, err := filepath.Glob(filepath.Join("checkpoints", "eval-*"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("directories %v (%v): want one checkpoints/eval-*", dirs, err)
	}
	if !strings.Contains(out, " in "+dirs[0]+"\n") {
		t.Errorf("output does not say where it wrote (%s):\n%s", dirs[0], out)
	}
	if _, err := os.Stat(filepath.Join(dirs[0], "results.json")); err != nil {
		t.Error(err)
	}
}

func TestEvalErrors(t *testing.T) {
	two := []string{"--player", "random", "--player", "greedy"}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown kind", []string{"--player", "random", "--player", "minimax"}, "random, greedy, alphabeta, mcts, az"},
		{"bad key", []string{"--player", "random", "--player", "alphabeta:nodes=3"}, "valid keys are depth, time"},
		{"bad value", []string{"--player", "random", "--player", "mcts:sims=0"}, "sims"},
		{"missing model", []string{"--player", "random", "--player", "az:model=missing.dsnn"}, "no such file"},
		{"empty name", []string{"--player", "random", "--player", "=greedy"}, "empty name"},
		{"one player", []string{"--player", "random"}, "want 2 or more"},
		{"no players", nil, "want 2 or more"},
		{"no games", append([]string{"--games", "0"}, two...), "--games"},
		{"no parallel", append([]string{"--parallel", "0"}, two...), "--parallel"},
		{"negative openings", append([]string{"--opening-plies", "-1"}, two...), "--opening-plies"},
		{"openings past the limit", append([]string{"--opening-plies", "10", "--max-plies", "10"}, two...), "--opening-plies is 10: want fewer than the move limit (max_plies 10)"},
		{"negative limit", append([]string{"--max-plies", "-1"}, two...), "--max-plies"},
		{"stray argument", append([]string{"extra"}, two...), "unexpected argument"},
		{"elo0 not below elo1", append([]string{"--sprt", "elo0=10,elo1=10"}, two...), "--sprt elo0 is 10: want less than elo1 (10)"},
		{"alpha too big", append([]string{"--sprt", "elo0=0,elo1=10,alpha=0.5"}, two...), "--sprt alpha is 0.5: want more than 0 and less than 0.5"},
		{"beta zero", append([]string{"--sprt", "elo0=0,elo1=10,beta=0"}, two...), "--sprt beta is 0: want more than 0 and less than 0.5"},
		{"unknown key", append([]string{"--sprt", "elo0=0,elo1=10,delta=1"}, two...), `--sprt "delta" is not a key: want elo0, elo1, alpha or beta`},
		{"no elo1", append([]string{"--sprt", "elo0=0"}, two...), "--sprt elo1 is missing"},
		{"not a number", append([]string{"--sprt", "elo0=0,elo1=x"}, two...), `--sprt elo1 is "x": want a number`},
		{"empty", append([]string{"--sprt", ""}, two...), "--sprt is empty"},
		{"three players", append([]string{"--sprt", "elo0=0,elo1=10", "--player", "alphabeta:depth=1"}, two...), "--player is given 3 times: want exactly 2 with --sprt"},
		{"odd games", append([]string{"--sprt", "elo0=0,elo1=10", "--games", "7"}, two...), "--games is 7: want an even number with --sprt"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			_, errOut, code := runBotCLI("", append([]string{"eval", "--out", dir}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q: want 2 and %q", code, errOut, tc.want)
			}
			if _, err := os.Stat(dir); err == nil {
				t.Errorf("%s written despite the error", dir)
			}
		})
	}
}

func TestCommandLine(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--player", "alphabeta:depth=2", "--games", "4"}, "deathstacks eval --player alphabeta:depth=2 --games 4"},
		{[]string{"--player", "az:model=my run/net.dsnn"}, "deathstacks eval --player 'az:model=my run/net.dsnn'"},
		{[]string{"--player", "it's"}, `deathstacks eval --player 'it'\''s'`},
		{[]string{"--out", ""}, "deathstacks eval --out ''"},
		{[]string{"#1"}, "deathstacks eval '#1'"},
	}
	for _, tc := range cases {
		if got := commandLine("eval", tc.args); got != tc.want {
			t.Errorf("commandLine(%q) = %s, want %s", tc.args, got, tc.want)
		}
	}
}

func FuzzParsePlayerArg(f *testing.F) {
	for _, seed := range []string{"random", "a=greedy", "az:model=x=y", "=random", "n=alphabeta:depth=3", "n=m=greedy", ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		name, spec, err := parsePlayerArg("--player", arg)
		if err != nil {
			return
		}
		if strings.ContainsAny(name, ":=") {
			t.Errorf("%q: name %q holds : or =", arg, name)
		}
		again, err := players.ParseSpec(spec.String())
		if err != nil || again.String() != spec.String() {
			t.Errorf("%q: spec %s does not read back (%v)", arg, spec, err)
		}
	})
}

// An eval records the network file a run directory resolved to, with its
// SHA-256, in results.json, report.md and games.jsonl, and its Reproduce
// command names that file: it plays the same network after the run goes
// on.
func TestEvalRecordsTheNetworkPlayed(t *testing.T) {
	run := filepath.Join("..", "..", "train", "testdata", "run-v2")
	ckpt := filepath.Join(run, "ckpt-000001.dsck")
	data, err := os.ReadFile(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	sum := fmt.Sprintf("%x", sha256.Sum256(data))
	for _, tc := range []struct{ name, player string }{
		{"run directory", "az:model=" + run + ",sims=4"},
		{"named", "mine=az:model=" + run + ",sims=4"},
		{"checkpoint", "az:model=" + ckpt + ",sims=4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "ev")
			if _, errOut, code := runBotCLI("", "eval", "--player", tc.player, "--player=random", "--games", "2", "--out", out, "--quiet"); code != 0 {
				t.Fatalf("status %d: %s", code, errOut)
			}
			var res struct {
				Command  string            `json:"command"`
				Networks map[string]string `json:"networks"`
			}
			data, err := os.ReadFile(filepath.Join(out, "results.json"))
			if err == nil {
				err = json.Unmarshal(data, &res)
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Networks[ckpt] != sum || !strings.Contains(res.Command, "--player "+strings.Replace(tc.player, run+",", ckpt+",", 1)+" --player=random") {
				t.Errorf("networks %v, command %q: want %s with sha256 %s, played by the command", res.Networks, res.Command, ckpt, sum)
			}
			md, _ := os.ReadFile(filepath.Join(out, "report.md"))
			games, _ := os.ReadFile(filepath.Join(out, "games.jsonl"))
			named := strings.HasPrefix(tc.player, "mine=") // games.jsonl names the player
			if !strings.Contains(string(md), "network `"+ckpt+"`: sha256 "+sum) || !named && !strings.Contains(string(games), "az:model="+ckpt) {
				t.Errorf("report.md or games.jsonl do not name %s with its checksum:\n%s", ckpt, md)
			}
		})
	}
}

func TestWithPlayers(t *testing.T) {
	for _, tc := range []struct{ args, want []string }{
		{[]string{"--player", "a", "--games", "2", "--player=b"}, []string{"--player", "A", "--games", "2", "--player=B"}},
		{[]string{"-player", "a", "-player", "b", "--", "--player"}, []string{"-player", "A", "-player", "B", "--", "--player"}},
		{[]string{"--players", "a", "--player", "b"}, []string{"--players", "a", "--player", "A"}},
	} {
		if got := withPlayers(tc.args, "player", []string{"A", "B"}); !slices.Equal(got, tc.want) {
			t.Errorf("withPlayers(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
