package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/report"
)

// runEvaluation starts the evaluation of a request, waits for it and
// returns its result, decoded, and its handle's progress.
func runEvaluation(t *testing.T, request string) (map[string]any, [2]int64, error) {
	t.Helper()
	e, err := newEvaluation(request)
	if err != nil {
		return nil, [2]int64{}, err
	}
	defer e.close()
	progress := make([]int64, 2)
	for {
		ended, err := e.wait(50, progress)
		if err != nil {
			t.Fatal(err)
		}
		if ended == 1 {
			break
		}
	}
	out, err := e.outcome()
	if err != nil {
		return nil, [2]int64(progress), err
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	return res, [2]int64(progress), nil
}

func TestEvaluation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	model := filepath.Join("..", "..", "train", "testdata", "run-v1", "nets", "net-000001.dsnn")
	request := `{"players": [{"name": "r", "spec": "random"}, {"name": "g", "text": "greedy"}, {"name": "net", "text": "` + model + `"},
		{"name": "net2", "model": "` + model + `"}], "games": 2, "seed": 5, "parallel": 2, "opening_plies": 2, "max_plies": 40,
		"out": "` + dir + `", "command": "again"}`
	res, progress, err := runEvaluation(t, request)
	if err != nil {
		t.Fatal(err)
	}
	if progress != [2]int64{12, 12} {
		t.Errorf("progress %v, want 12 of 12", progress)
	}
	results := res["results"].(map[string]any)
	specs := map[string]any{}
	for _, p := range results["players"].([]any) {
		specs[p.(map[string]any)["name"].(string)] = p.(map[string]any)["spec"]
	}
	if specs["r"] != "random" || specs["g"] != "greedy" || specs["net"] != "az:model="+model || specs["net2"] != "az:model="+model {
		t.Errorf("specs %v", specs)
	}
	if results["command"] != "again" || len(res["games"].([]any)) != 12 || !strings.Contains(res["text"].(string), "Pairs: ") {
		t.Errorf("result %v", res)
	}
	saved, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]any
	if err := json.Unmarshal(saved, &file); err != nil || file["games"] != results["games"] {
		t.Errorf("results.json %s (%v), want the result's", saved, err)
	}
	// Finished results are never replaced.
	if _, err := newEvaluation(request); err == nil || !strings.Contains(err.Error(), dir+" holds a finished evaluation (results.json): choose another out") {
		t.Errorf("a second evaluation into %s: error %v", dir, err)
	}
}

// untimed is the games (from games.jsonl in the folder dir, as the
// result's numbers are float64) and the players' and pairs' results of an
// evaluation's result, without what the clock decides.
func untimed(t *testing.T, dir string, res map[string]any) (games []arena.GameRecord, players, pairs any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, report.GamesFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var g arena.GameRecord
		if err := json.Unmarshal([]byte(line), &g); err != nil {
			t.Fatal(err)
		}
		g.MoveMS = nil
		games = append(games, g)
	}
	results := res["results"].(map[string]any)
	for _, p := range results["players"].([]any) {
		delete(p.(map[string]any), "mean_move_ms")
	}
	return games, results["players"], results["pairs"]
}

// An evaluation whose folder holds the journal of some of its games (as a
// stop leaves it), continued with resume, plays the missing games only, for
// the games and results of one played in one go; the refusals on the way
// say what the folder holds and what to do.
func TestEvaluationResume(t *testing.T) {
	base := t.TempDir()
	request := func(dir string, seed int, resume bool) string {
		return fmt.Sprintf(`{"players": [{"name": "r", "spec": "random"}, {"name": "g", "spec": "greedy"}, {"name": "ab", "spec": "alphabeta:depth=1"}],
			"games": 2, "seed": %d, "parallel": 2, "opening_plies": 2, "max_plies": 60, "out": %q, "resume": %t,
			"command": "the call", "command_language": "python"}`, seed, dir, resume)
	}
	one := filepath.Join(base, "one")
	oneGo, _, err := runEvaluation(t, request(one, 5, false))
	if err != nil {
		t.Fatal(err)
	}
	games, players, pairs := untimed(t, one, oneGo)
	if len(games) != 6 {
		t.Fatalf("%d games in one go, want 6", len(games))
	}
	// The journal of an evaluation stopped after two of its six games.
	dir := filepath.Join(base, "resumed")
	req, err := parseRequest(request(dir, 5, false))
	if err != nil {
		t.Fatal(err)
	}
	out, err := req.output()
	if err != nil {
		t.Fatal(err)
	}
	contenders, err := req.contenders(arena.NewCallerPlayers(len(req.Players), model.LegalSoftmax, func() {}))
	if err != nil {
		t.Fatal(err)
	}
	j, err := req.open(out, contenders)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []arena.GameRecord{games[4], games[1]} {
		if err := j.journal.Append(g); err != nil {
			t.Fatal(err)
		}
	}
	j.journal.Close()

	for _, refused := range []struct{ name, request, want string }{
		{"afresh over it", request(dir, 5, false), dir + " holds an unfinished evaluation (2 games played of 6): continue it with the same call and resume=True, or choose another out"},
		{"with another seed", request(dir, 6, true), `seed is "6" here but "5" in the games played so far, which this command started: the call`},
		{"without a folder", `{"players": [{"name": "r", "spec": "random"}, {"name": "g", "spec": "greedy"}], "games": 2, "parallel": 1, "resume": true}`, "resume: give the out folder"},
		{"from an empty folder", request(base, 5, true), "no unfinished evaluation in " + base},
	} {
		if _, err := newEvaluation(refused.request); err == nil || !strings.Contains(err.Error(), refused.want) {
			t.Errorf("resume %s: error %v, want %q", refused.name, err, refused.want)
		}
	}
	resumed, progress, err := runEvaluation(t, request(dir, 5, true))
	if err != nil {
		t.Fatal(err)
	}
	if progress != [2]int64{6, 6} {
		t.Errorf("progress %v, want 6 of 6", progress)
	}
	g, pl, pa := untimed(t, dir, resumed)
	if !reflect.DeepEqual(g, games) || !reflect.DeepEqual(pl, players) || !reflect.DeepEqual(pa, pairs) {
		t.Errorf("resumed:\n%v\n%v\nwant, as in one go:\n%v\n%v", pl, pa, players, pairs)
	}
	if held, _ := report.EvaluationFolder(dir).Holds(); held != report.HoldsFinished {
		t.Errorf("the folder holds %v after the resumed evaluation, want its results and no journal", held)
	}
	if results := resumed["results"].(map[string]any); results["command"] != "the call" || results["command_language"] != "python" {
		t.Errorf("command %v in %v, want the call that started the games", results["command"], results["command_language"])
	}
	if _, err := newEvaluation(request(dir, 5, true)); err == nil || !strings.Contains(err.Error(), dir+" holds a finished evaluation; nothing to resume") {
		t.Errorf("resume a finished evaluation: error %v", err)
	}
}

func TestEvaluationErrors(t *testing.T) {
	two := `"players": [{"name": "a", "spec": "random"}, {"name": "b", "spec": "greedy"}]`
	cases := []struct {
		name, request, want string
		atStart             bool // refused by newEvaluation, else by the games
	}{
		{"not JSON", `{`, "request: unexpected EOF", true},
		{"unknown field", `{"gamez": 2}`, `unknown field "gamez"`, true},
		{"bad spec", `{"players": [{"name": "a", "spec": "minimax"}, {"name": "b", "spec": "greedy"}], "games": 2, "parallel": 1}`, `player a: player spec "minimax": unknown kind`, true},
		{"no spec, no file", `{"players": [{"name": "a", "text": "no/such.dsnn"}, {"name": "b", "spec": "greedy"}], "games": 2, "parallel": 1}`, `and no file is called "no/such.dsnn"`, true},
		{"bad model", `{"players": [{"name": "a", "model": "no/such.dsnn"}, {"name": "b", "spec": "greedy"}], "games": 2, "parallel": 1}`, "no/such.dsnn", true},
		{"two forms", `{"players": [{"name": "a", "spec": "random", "text": "random"}, {"name": "b", "spec": "greedy"}], "games": 2, "parallel": 1}`, "want exactly one of spec, model, text and python", true},
		{"no name", `{"players": [{"spec": "random"}, {"name": "b", "spec": "greedy"}], "games": 2, "parallel": 1}`, "player 1 has no name", true},
		{"bad sprt", `{` + two + `, "games": 2, "parallel": 1, "sprt": "elo0=1"}`, "sprt: elo1", true},
		{"no games", `{` + two + `, "games": 0, "parallel": 1}`, "games is 0: want 1 or more", true},
		{"sprt of three", `{"players": [{"name": "a", "spec": "random"}, {"name": "b", "spec": "greedy"}, {"name": "c", "spec": "greedy"}], "games": 2, "parallel": 1, "sprt": "elo0=0,elo1=20"}`, "want exactly 2", true},
		{"same name", `{"players": [{"name": "a", "spec": "random"}, {"name": "a", "spec": "greedy"}], "games": 2, "parallel": 1}`, "two entrants are called a", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, err := newEvaluation(tc.request)
			if !tc.atStart && err == nil {
				_, _, err = runEvaluation(t, tc.request)
				e.close()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
			if tc.atStart && e != nil {
				t.Error("an evaluation started")
			}
		})
	}
}

// Closing an evaluation stops its games, an external program that hangs
// included, and its result is then the context's error.
func TestEvaluationClose(t *testing.T) {
	e, err := newEvaluation(`{"players": [{"name": "hang", "spec": "cmd(timeout=1h):sleep 1000"}, {"name": "r", "spec": "random"}], "games": 2, "parallel": 2}`)
	if err != nil {
		t.Fatal(err)
	}
	if ended, _ := e.wait(10, nil); ended != 0 {
		t.Fatal("a game against a program that hangs for an hour ended")
	}
	if _, err := e.outcome(); err != errPlaying {
		t.Errorf("outcome while playing: %v, want %v", err, errPlaying)
	}
	if err := e.close(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.outcome(); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("outcome after close: %v, want the games canceled", err)
	}
}

// FuzzParseRequest reads requests from outside: an error or a request
// with a spec for every player, never a panic. It builds no player, so it
// runs no program a cmd spec names.
func FuzzParseRequest(f *testing.F) {
	for _, seed := range []string{
		`{"players": [{"name": "a", "spec": "random"}, {"name": "b", "text": "cmd:prog a=b,c"}], "games": 2, "sprt": "elo0=0,elo1=20"}`,
		`{"players": [{"name": "a", "model": "x.dsnn"}], "out": "dir", "max_plies": -1}`,
		`{"players": [{"name": "", "spec": "greedy"}]}`, `{"sprt": "elo0"}`, `[]`, `{"gamez": 1}`, ``,
		`{"players": [{"name": "a", "python": "evaluator", "settings": {"sims": 8}}, {"name": "b", "python": "policy"}], "games": 2}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, request string) {
		req, err := parseRequest(request)
		if err != nil {
			return
		}
		if len(req.specs) != len(req.Players) {
			t.Fatalf("%d specs for %d players", len(req.specs), len(req.Players))
		}
		for i, s := range req.specs {
			p := req.Players[i]
			if (s.Kind == "") != (p.Python == pythonEvaluator || p.Python == pythonPolicy) || p.Name == "" {
				t.Fatalf("player %d: %+v, spec %+v", i, p, s)
			}
		}
	})
}
