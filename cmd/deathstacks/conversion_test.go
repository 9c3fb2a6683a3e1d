package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/train/report"
)

// conversionKeys are the keys each pair of results.json and ladder.json
// gains to say how its games ended.
var conversionKeys = []string{"draws_repetition", "draws_move_limit", "draws_move_limit_far_ahead", "draws_a_ahead", "mean_lead_a", "draws_b_ahead", "mean_lead_b", "decided", "mean_decided_plies"}

// readPairs returns the pairs of a results file, each as its keys and
// values, and as a PairResult.
func readPairs(t *testing.T, path string) ([]map[string]any, []report.PairResult) {
	t.Helper()
	var raw struct {
		Pairs []map[string]any `json:"pairs"`
	}
	data := readJSON(t, path, &raw)
	var typed struct {
		Pairs []report.PairResult `json:"pairs"`
	}
	if err := json.Unmarshal(data, &typed); err != nil {
		t.Fatal(err)
	}
	return raw.Pairs, typed.Pairs
}

// checkPairs checks that every pair of a results file has the keys of
// before and the conversion keys, with figures that add up.
func checkPairs(t *testing.T, path string) []report.PairResult {
	t.Helper()
	raw, pairs := readPairs(t, path)
	if len(pairs) == 0 {
		t.Fatalf("%s: no pairs", path)
	}
	for i, p := range pairs {
		for _, key := range append([]string{"a", "b", "games", "wins", "draws", "losses", "score"}, conversionKeys...) {
			if _, ok := raw[i][key]; !ok {
				t.Errorf("%s: pair %s-%s lacks %q", path, p.A, p.B, key)
			}
		}
		if p.Decided != p.Wins+p.Losses || p.DrawsRepetition+p.DrawsMoveLimit > p.Draws || p.DrawsMoveLimitFarAhead > p.DrawsMoveLimit || p.DrawsAAhead+p.DrawsBAhead > p.Draws ||
			(p.Decided > 0) != (p.MeanDecidedPlies > 0) || (p.DrawsAAhead > 0) != (p.MeanLeadA > 0) || (p.DrawsBAhead > 0) != (p.MeanLeadB > 0) {
			t.Errorf("%s: pair %+v does not add up", path, p)
		}
	}
	return pairs
}

// eval reports each pair's draws by kind and by the side ahead and the
// length of its decided games, on the terminal and in results.json.
func TestEvalConversion(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	out, errOut, code := runBotCLI("", "eval", "--player", "random", "--player", "greedy", "--player", "alphabeta:depth=1",
		"--games", "4", "--seed", "2", "--max-plies", "40", "--out", dir, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !hasRow(out, "A", "B", "draws", "repetition", "move", "limit", "100+", "ahead", "A", "ahead", "B", "ahead", "decided", "plies/decided") {
		t.Errorf("output lacks the table of draws:\n%s", out)
	}
	pairs := checkPairs(t, filepath.Join(dir, report.ResultsFile))
	limit := 0
	for _, p := range pairs {
		limit += p.DrawsMoveLimit
	}
	if limit == 0 {
		t.Errorf("no draw at a move limit of 40 plies: %+v", pairs)
	}
}

// A ladder's pool takes fixed anchors stronger than alpha-beta at a
// fixed depth: alpha-beta for a time a move and the built-in player (az
// without a model); ladder.json's pairs say how their games ended.
func TestLadderStrongAnchors(t *testing.T) {
	run := fakeRun(t, 1)
	out := t.TempDir()
	stdout, errOut, code := runBotCLI("", "ladder", "--run", run, "--vs", "alphabeta:time=1ms", "--vs", "az:sims=1",
		"--games", "2", "--sims", "2", "--parallel", "2", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Players []struct {
			Spec string `json:"spec"`
		} `json:"players"`
	}
	readJSON(t, filepath.Join(out, report.LadderResultsFile), &rep)
	var specs []string
	for _, p := range rep.Players {
		specs = append(specs, p.Spec)
	}
	for _, want := range []string{"alphabeta:time=1ms", "az:sims=1"} {
		if !slices.Contains(specs, want) {
			t.Errorf("ladder.json players %q lack %s", specs, want)
		}
	}
	if pairs := checkPairs(t, filepath.Join(out, report.LadderResultsFile)); len(pairs) != 3 {
		t.Errorf("%d pairs, want the anchors against each other and the snapshot against each", len(pairs))
	}
	if !hasRow(stdout, "A", "B", "draws", "repetition", "move", "limit") {
		t.Errorf("output lacks the table of draws:\n%s", stdout)
	}
}

// A journal written before game records kept their final positions
// resumes: the positions are replayed, and the results are those of one
// run in one go.
func TestResumeJournalOfEarlierVersion(t *testing.T) {
	args := func(out string) []string {
		return []string{"eval", "--player", "random", "--player", "greedy", "--games", "4", "--seed", "5", "--max-plies", "40",
			"--parallel", "1", "--out", out, "--quiet"}
	}
	oneGo := filepath.Join(t.TempDir(), "one-go")
	if _, errOut, code := runBotCLI("", args(oneGo)...); code != 0 {
		t.Fatalf("in one go: status %d: %s", code, errOut)
	}
	want := readGames(t, filepath.Join(oneGo, report.GamesFile))
	dir := filepath.Join(t.TempDir(), "cut")
	if _, errOut, code := runStoppedCLI(args(dir)...); code != 130 {
		t.Fatalf("stopped at once: status %d: %s", code, errOut)
	}
	var text strings.Builder
	for _, r := range want[:3] {
		var line map[string]any
		data, _ := json.Marshal(r)
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber() // seeds are beyond a float64's precision
		if err := dec.Decode(&line); err != nil {
			t.Fatal(err)
		}
		delete(line, "end_fen") // as an earlier version wrote it
		data, _ = json.Marshal(line)
		text.Write(append(data, '\n'))
	}
	appendTo(t, filepath.Join(dir, report.GamesJournal), text.String())
	if _, errOut, code := runBotCLI("", append(args(dir), "--resume")...); code != 0 {
		t.Fatalf("--resume: status %d: %s", code, errOut)
	}
	if got := readGames(t, filepath.Join(dir, report.GamesFile)); !reflect.DeepEqual(got, want) {
		t.Errorf("games after resuming an earlier version's journal differ from those played in one go")
	}
	if _, got := readPairs(t, filepath.Join(dir, report.ResultsFile)); !reflect.DeepEqual(got, checkPairs(t, filepath.Join(oneGo, report.ResultsFile))) {
		t.Errorf("pairs after resuming %+v differ from those played in one go", got)
	}
}
