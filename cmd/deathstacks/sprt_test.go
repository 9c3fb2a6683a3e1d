package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/train/elo"
	"github.com/deathstacks/deathstacks/train/report"
)

// sprtArgs is an SPRT eval of greedy against random, which greedy wins
// game after game: H1 accepted after a few pairs.
func sprtArgs(out string, more ...string) []string {
	return append([]string{"eval", "--player", "greedy", "--player", "random", "--sprt", "elo0=0,elo1=100",
		"--games", "40", "--max-plies", "100", "--seed", "3", "--parallel", "2", "--out", out, "--quiet"}, more...)
}

// readSPRT returns results.json's sprt object and its keys.
func readSPRT(t *testing.T, path string) (elo.SPRTResult, []string) {
	t.Helper()
	var raw struct {
		SPRT map[string]json.RawMessage `json:"sprt"`
	}
	data := readJSON(t, path, &raw)
	var res struct {
		SPRT elo.SPRTResult `json:"sprt"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(raw.SPRT))
	for k := range raw.SPRT {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return res.SPRT, keys
}

// The last line of an SPRT eval says the decision in the form of the
// issue, results.json carries the test with exactly its fields, and the
// games are those of the pairs the test counted.
func TestEvalSPRT(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	out, errOut, code := runBotCLI("", sprtArgs(dir)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	last := lines[len(lines)-1]
	if !regexp.MustCompile(`^sprt: H1 accepted \(llr \d+\.\d\d, bounds -2\.94 2\.94, \d+ pairs, elo0 0 elo1 100\)$`).MatchString(last) {
		t.Errorf("last line %q: want sprt: H1 accepted (llr L, bounds -2.94 2.94, N pairs, elo0 0 elo1 100)", last)
	}
	if !strings.HasPrefix(out, "eval: 2 players, 1 pair, 40 games each: 40 games, 2 at once, until the sprt elo0=0,elo1=100,alpha=0.05,beta=0.05 decides\n") {
		t.Errorf("first line does not name the test:\n%s", out)
	}
	res, keys := readSPRT(t, filepath.Join(dir, report.ResultsFile))
	if want := []string{"alpha", "beta", "decision", "elo0", "elo1", "llr", "lower", "upper", "pairs"}; !slices.Equal(keys, slices.Sorted(slices.Values(want))) {
		t.Errorf("results.json sprt has %v, want exactly %v", keys, want)
	}
	if res.Decision != elo.SPRTH1 || res.Elo1 != 100 || res.Alpha != 0.05 || res.Pairs == 0 || res.LLR < res.Upper {
		t.Errorf("results.json sprt = %+v", res)
	}
	if want := fmt.Sprintf("sprt: %s (llr %.2f, bounds %.2f %.2f, %d pairs, elo0 0 elo1 100)", res.Decision, res.LLR, res.Lower, res.Upper, res.Pairs); last != want {
		t.Errorf("last line %q, results.json says %q", last, want)
	}
	if games := readGames(t, filepath.Join(dir, report.GamesFile)); len(games) != 2*res.Pairs {
		t.Errorf("%d games for %d pairs", len(games), res.Pairs)
	}
	if results := readResults(t, filepath.Join(dir, report.ResultsFile)); results.Games != 2*res.Pairs || len(results.Pairs) != 1 {
		t.Errorf("results.json: %d games, %d pairs of players", results.Games, len(results.Pairs))
	}
	report, err := os.ReadFile(filepath.Join(dir, report.ReportFile))
	if err != nil || !strings.Contains(string(report), "## SPRT\n\nH1 accepted: greedy is 0 Elo stronger than random (H0) or 100 (H1)") {
		t.Errorf("report.md lacks the test (%v):\n%s", err, report)
	}
}

// A stopped SPRT eval continues with --resume to the same decision and
// games as one played in one go; other test settings are refused.
func TestEvalSPRTResume(t *testing.T) {
	oneGo := filepath.Join(t.TempDir(), "one-go")
	if _, errOut, code := runBotCLI("", sprtArgs(oneGo)...); code != 0 {
		t.Fatalf("in one go: status %d: %s", code, errOut)
	}
	want := readGames(t, filepath.Join(oneGo, report.GamesFile))
	wantTest, _ := readSPRT(t, filepath.Join(oneGo, report.ResultsFile))

	dir := filepath.Join(t.TempDir(), "cut")
	if _, errOut, code := runStoppedCLI(sprtArgs(dir)...); code != 130 {
		t.Fatalf("stopped at once: status %d: %s", code, errOut)
	}
	var text []byte
	for _, r := range want[:3] {
		line, _ := json.Marshal(r)
		text = append(append(text, line...), '\n')
	}
	appendTo(t, filepath.Join(dir, report.GamesJournal), string(text))

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"another test", sprtArgs(dir, "--resume", "--sprt", "elo0=0,elo1=50"), `sprt is "elo0=0,elo1=50,alpha=0.05,beta=0.05" here but "elo0=0,elo1=100,alpha=0.05,beta=0.05" in the games played so far`},
		{"no test", slices.DeleteFunc(sprtArgs(dir, "--resume"), func(a string) bool { return a == "--sprt" || a == "elo0=0,elo1=100" }), `sprt is "none" here but "elo0=0,elo1=100,alpha=0.05,beta=0.05"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, errOut, code := runBotCLI("", tc.args...); code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("status %d, stderr %q: want 2 and %q", code, errOut, tc.want)
			}
		})
	}
	out, errOut, code := runBotCLI("", sprtArgs(dir, "--resume", "--parallel", "1")...)
	if code != 0 {
		t.Fatalf("--resume: status %d: %s", code, errOut)
	}
	if !strings.Contains(out, "decides, 3 games played before\n") {
		t.Errorf("--resume does not say how many games it found:\n%s", out)
	}
	if got := readGames(t, filepath.Join(dir, report.GamesFile)); !reflect.DeepEqual(got, want) {
		t.Errorf("games after resuming differ from those played in one go")
	}
	if got, _ := readSPRT(t, filepath.Join(dir, report.ResultsFile)); got != wantTest {
		t.Errorf("sprt after resuming %+v, want %+v as in one go", got, wantTest)
	}
}
