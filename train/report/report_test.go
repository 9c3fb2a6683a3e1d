package report

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/elo"
	"github.com/deathstacks/deathstacks/train/internal/charttest"
)

// game returns a record of a finished game between red and blue.
func game(n int, red, blue, result string) arena.GameRecord {
	return arena.GameRecord{Game: n, Red: red, Blue: blue, Result: result, Reason: arena.ReasonWin}
}

// specContenders returns the contenders of player specs, each called by
// its spec.
func specContenders(t *testing.T, specs ...string) []arena.Contender {
	t.Helper()
	var out []arena.Contender
	for _, text := range specs {
		spec, err := players.ParseSpec(text)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, arena.SpecContender(text, spec, nil))
	}
	return out
}

// contenders returns contenders named by their specs, without factories.
func contenders(specs ...string) []arena.Contender {
	out := make([]arena.Contender, len(specs))
	for i, s := range specs {
		out[i] = arena.Contender{Entrant: arena.Entrant{Name: s}, Spec: s}
	}
	return out
}

// testArena is the arena settings the report tests claim.
var testArena = arena.Config{Rules: env.DefaultRules(), Games: 4, Parallel: 1, OpeningPlies: 2, Seed: 9}

// sampleRecords: strong beats weak 3-1, weak and random draw twice and
// each wins once, strong beats random 4-0; each pairing plays four games,
// colours swapped after each.
func sampleRecords() []arena.GameRecord {
	var records []arena.GameRecord
	for _, m := range []struct {
		first, second string
		results       [4]string // of games 0-3; first is red in games 0 and 2
	}{
		{"strong", "weak", [4]string{arena.ResultRedWins, arena.ResultBlueWins, arena.ResultRedWins, arena.ResultRedWins}},
		{"weak", "random", [4]string{arena.ResultDraw, arena.ResultDraw, arena.ResultRedWins, arena.ResultRedWins}},
		{"strong", "random", [4]string{arena.ResultRedWins, arena.ResultBlueWins, arena.ResultRedWins, arena.ResultBlueWins}},
	} {
		for i, result := range m.results {
			red, blue := m.first, m.second
			if i%2 == 1 {
				red, blue = blue, red
			}
			records = append(records, game(len(records), red, blue, result))
		}
	}
	return records
}

func TestNew(t *testing.T) {
	records := sampleRecords()
	rep, err := New(records, contenders("strong", "weak", "random"), "random", testArena)
	if err != nil {
		t.Fatal(err)
	}
	wantPairs := []PairResult{
		{A: "strong", B: "weak", Games: 4, Wins: 3, Losses: 1, Score: 0.75, Conversion: Conversion{Decided: 4}},
		{A: "weak", B: "random", Games: 4, Wins: 1, Draws: 2, Losses: 1, Score: 0.5, Conversion: Conversion{Decided: 2}},
		{A: "strong", B: "random", Games: 4, Wins: 4, Score: 1, Conversion: Conversion{Decided: 4}},
	}
	if !reflect.DeepEqual(rep.Pairs, wantPairs) {
		t.Errorf("pairs %+v\nwant %+v", rep.Pairs, wantPairs)
	}
	ratings, err := elo.Fit(arena.Results(records), "random")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Players) != len(ratings) {
		t.Fatalf("%d players, want %d", len(rep.Players), len(ratings))
	}
	for i, s := range rep.Players {
		r := ratings[i]
		if s.Name != r.Player || s.Spec != r.Player || s.Elo != r.Elo || s.CI95 != [2]float64{r.Low, r.High} {
			t.Errorf("standing %d: %+v, want the fit's %+v", i, s, r)
		}
		points, games := arena.ScoreOf(records, s.Name)
		if s.Games != games || s.Wins+s.Draws+s.Losses != games || math.Abs(s.Score-points/float64(games)) > 1e-12 {
			t.Errorf("%s: %d games %d/%d/%d score %v, want %d games and %v points", s.Name, s.Games, s.Wins, s.Draws, s.Losses, s.Score, games, points)
		}
	}
	if rep.Players[0].Name != "strong" {
		t.Errorf("best player %s, want strong", rep.Players[0].Name)
	}
	if a, ok := rep.Player("random"); !ok || a.Elo != 0 || a.CI95 != [2]float64{0, 0} {
		t.Errorf("anchor %+v: want Elo 0 with interval [0, 0]", a)
	}
	if rep.Anchor != "random" || rep.Games != len(records) || rep.Seed != 9 || rep.GamesPerPair != 4 || rep.OpeningPlies != 2 ||
		rep.Rules != (arena.RulesRecord{TooTall: true, MaxPlies: 300, RepetitionLimit: 3}) {
		t.Errorf("settings %+v", rep.Settings)
	}
}

func TestNewErrors(t *testing.T) {
	cases := []struct {
		name    string
		records []arena.GameRecord
		players []arena.Contender
		anchor  string
		want    string
	}{
		{"anchor not a player", sampleRecords(), contenders("strong", "weak", "random"), "greedy", `anchor "greedy" is not a player`},
		{"stranger in a game", sampleRecords(), contenders("strong", "weak"), "weak", `"random" is not a player`},
		{"player without games", sampleRecords(), contenders("strong", "weak", "random", "idle"), "random", "idle played no game"},
		{"no games", nil, contenders("strong", "weak"), "weak", "played no game"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.records, tc.players, tc.anchor, testArena)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// sampleReport is the report of sampleRecords with its settings filled in.
func sampleReport(t *testing.T) *Report {
	t.Helper()
	rep, err := New(sampleRecords(), contenders("strong", "weak", "random"), "random", testArena)
	if err != nil {
		t.Fatal(err)
	}
	rep.Date = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	rep.DurationSec = 75
	rep.Command = "deathstacks eval --player strong --player weak --player random --games 4 --seed 9"
	return rep
}

// The JSON keeps the contract of results.json: players with spec, elo and
// ci95 as [low, high]; pairs with a, b, wins, draws and losses.
func TestReportJSONShape(t *testing.T) {
	rep := sampleReport(t)
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Anchor  string           `json:"anchor"`
		Players []map[string]any `json:"players"`
		Pairs   []map[string]any `json:"pairs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Anchor != "random" || len(doc.Players) != 3 || len(doc.Pairs) != 3 {
		t.Fatalf("document %s", data)
	}
	for i, p := range doc.Players {
		_, spec := p["spec"].(string)
		elo, isNum := p["elo"].(float64)
		ci, _ := p["ci95"].([]any)
		if !spec || !isNum || len(ci) != 2 || !(ci[0].(float64) <= elo && elo <= ci[1].(float64)) {
			t.Errorf("player %d: want spec, elo and ci95 [low, high] around it: %v", i, p)
		}
	}
	for i, p := range doc.Pairs {
		for _, key := range []string{"a", "b", "wins", "draws", "losses"} {
			if _, ok := p[key]; !ok {
				t.Errorf("pair %d has no %q: %v", i, key, p)
			}
		}
	}
	var back Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, rep) {
		t.Errorf("JSON round trip\n%+v\nwant\n%+v", back, *rep)
	}
}

func TestReportText(t *testing.T) {
	if elo.PriorDraws != 1 {
		t.Fatalf("the reports say the prior is one virtual draw, but elo.PriorDraws is %v", elo.PriorDraws)
	}
	var b bytes.Buffer
	if err := sampleReport(t).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Pairs: ", "A       B       games  W  D  L  score\n", "strong  weak        4  3  0  1  0.750\n",
		"Players: ", "relative to random = 0", "anchor", "±", "a prior of one virtual draw",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "spec") {
		t.Errorf("a spec column although every name is its spec:\n%s", out)
	}
}

func TestReportMarkdown(t *testing.T) {
	rep := sampleReport(t)
	rep.Players[1].Name = "named" // a name unlike its spec brings the spec column
	md := rep.Markdown()
	for _, want := range []string{
		"# Evaluation\n", "- date: 2026-11-30 12:00 UTC, 1m15s of play\n", "- 12 games, 4 per pair",
		"same 2 random plies", "move limit 300 plies", "- seed: 9\n", "](elo.png)",
		"## Players\n", "a prior of one virtual draw", "| # | player | spec | Elo | ±95% |", "|---:|---|---|---:|---:|",
		"## Pairs\n", "| strong | weak | 4 | 3 | 0 | 1 | 0.750 |",
		"## Reproduce\n", "```sh\n" + rep.Command + "\n```",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

// The command of a call from Python is a Python block.
func TestReportMarkdownPython(t *testing.T) {
	rep := sampleReport(t)
	rep.Command, rep.CommandLanguage = "deathstacks.evaluate({'a': 'random', 'b': 'greedy'}, games=4)", "python"
	md := rep.Markdown()
	if want := "## Reproduce\n\n```python\n" + rep.Command + "\n```\n"; !strings.Contains(md, want) {
		t.Errorf("Markdown lacks %q:\n%s", want, md)
	}
	if strings.Contains(md, "```sh") {
		t.Errorf("a shell block for a Python call:\n%s", md)
	}
}

func TestReportSave(t *testing.T) {
	dir := t.TempDir()
	rep, records := sampleReport(t), sampleRecords()
	if err := rep.Save(dir, records); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(&back, rep) {
		t.Errorf("results.json reads back as %+v (%v)", back, err)
	}
	md, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil || string(md) != rep.Markdown() {
		t.Errorf("report.md differs from the Markdown (%v)", err)
	}
	f, err := os.Open(filepath.Join(dir, GamesFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var games []arena.GameRecord
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var g arena.GameRecord
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatalf("games.jsonl line %d: %v", len(games)+1, err)
		}
		games = append(games, g)
	}
	if !reflect.DeepEqual(games, records) {
		t.Errorf("games.jsonl holds %d games unlike the records", len(games))
	}
	charttest.CheckPNG(t, filepath.Join(dir, EloChart))
	if err := rep.Save(filepath.Join(dir, "missing"), records); err == nil {
		t.Error("saving into a missing directory: no error")
	}
}

// A real tournament: greedy must come out above random, alpha-beta above
// greedy, and the report must agree with the records.
func TestReportOfRoundRobin(t *testing.T) {
	contenders := specContenders(t, "random", "greedy", "alphabeta:depth=1")
	cfg := arena.Config{Rules: env.DefaultRules(), Games: 8, Parallel: 2, OpeningPlies: 2, Seed: 5}
	records, err := arena.RoundRobin(context.Background(), arena.Entrants(contenders), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := New(records, contenders, DefaultAnchor(contenders), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Pairs) != 3 || rep.Pairs[0].A != "random" || rep.Pairs[0].B != "greedy" || rep.Pairs[2].A != "greedy" {
		t.Errorf("pairs %+v: want the round robin's order", rep.Pairs)
	}
	greedy, _ := rep.Player("greedy")
	if greedy.Elo <= 0 {
		t.Errorf("greedy Elo %v: want above random's 0", greedy.Elo)
	}
	if rep.Players[len(rep.Players)-1].Name != "random" {
		t.Errorf("players %+v: want random last", rep.Players)
	}
}

func ExampleNew() {
	var contenders []arena.Contender
	for _, name := range []string{"greedy", "random"} {
		spec, _ := players.ParseSpec(name)
		contenders = append(contenders, arena.SpecContender(name, spec, nil))
	}
	cfg := arena.Config{Rules: env.DefaultRules(), Games: 10, Parallel: 2, OpeningPlies: 2, Seed: 1}
	records, err := arena.RoundRobin(context.Background(), arena.Entrants(contenders), cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := New(records, contenders, DefaultAnchor(contenders), cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	greedy, _ := rep.Player("greedy")
	fmt.Printf("%d games, anchor %s, greedy above it: %v\n", rep.Games, rep.Anchor, greedy.Elo > 0)
	// Output: 10 games, anchor random, greedy above it: true
}

func TestMeanMoveMS(t *testing.T) {
	timed := func(red, blue, fen string, ms ...float64) arena.GameRecord {
		r := game(0, red, blue, arena.ResultDraw)
		r.StartFEN, r.MoveMS = fen, ms
		r.Moves = make([]string, len(ms))
		return r
	}
	redToMove, blueToMove := env.StartFEN, strings.TrimSuffix(env.StartFEN, "r")+"b"
	cases := []struct {
		name    string
		records []arena.GameRecord
		a, b    float64 // the means of players a and b
	}{
		{"red first", []arena.GameRecord{timed("a", "b", redToMove, 10, 1, 20, 3)}, 15, 2},
		{"blue first", []arena.GameRecord{timed("a", "b", blueToMove, 10, 1, 20)}, 1, 15},
		{"over games", []arena.GameRecord{timed("a", "b", redToMove, 10, 1), timed("b", "a", redToMove, 5, 40, 7)}, 25, 13.0 / 3},
		{"untimed records", []arena.GameRecord{game(0, "a", "b", arena.ResultDraw)}, 0, 0},
		{"a move not timed", []arena.GameRecord{{Red: "a", Blue: "b", StartFEN: redToMove, Moves: []string{"x", "y"}, MoveMS: []float64{4}}}, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := meanMoveMS(tc.records, "a"), meanMoveMS(tc.records, "b")
			if math.Abs(a-tc.a) > 1e-9 || math.Abs(b-tc.b) > 1e-9 {
				t.Errorf("means %v, %v: want %v, %v", a, b, tc.a, tc.b)
			}
		})
	}
}

func TestReportConversionTable(t *testing.T) {
	records := []arena.GameRecord{
		{Game: 0, Red: "strong", Blue: "weak", Result: arena.ResultDraw, Reason: arena.ReasonMoveLimit, EndFEN: redAhead25},
		{Game: 1, Red: "weak", Blue: "strong", Result: arena.ResultDraw, Reason: arena.ReasonMoveLimit, EndFEN: blueAhead50},
		{Game: 2, Red: "strong", Blue: "weak", Result: arena.ResultRedWins, Reason: arena.ReasonWin, StartPly: 4, Moves: make([]string, 80)},
		{Game: 3, Red: "weak", Blue: "strong", Result: arena.ResultDraw, Reason: arena.ReasonRepetition, EndFEN: evenStart},
		{Game: 4, Red: "strong", Blue: "weak", Result: arena.ResultDraw, Reason: arena.ReasonMoveLimit, EndFEN: redAhead125},
	}
	rep, err := New(records, contenders("strong", "weak"), "weak", testArena)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, text string
		row        []string
	}{
		{"text", text.String(), []string{"strong", "weak", "4", "1", "3", "1", "3", "(mean", "lead", "67)", "0", "1", "84.0"}},
		{"markdown", rep.Markdown(), []string{"|", "strong", "|", "weak", "|", "4", "|", "1", "|", "3", "|", "1", "|", "3", "(mean", "lead", "67)", "|", "0", "|", "1", "|", "84.0", "|"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			found := false
			for _, line := range strings.Split(tc.text, "\n") {
				found = found || slices.Equal(strings.Fields(line), tc.row)
			}
			if !found {
				t.Errorf("no row %q in:\n%s", tc.row, tc.text)
			}
		})
	}
}

// Games lost by misbehaving count by reason for the side that lost them,
// in results.json and in a Forfeits table that only a report with some
// has.
func TestReportForfeits(t *testing.T) {
	records := sampleRecords()
	if strings.Contains(sampleReport(t).Markdown(), "Forfeits") {
		t.Error("a Forfeits section without forfeits")
	}
	forfeit := func(i int, reason string) {
		records[i].Reason, records[i].Detail = reason, "program x: ..."
	}
	// Games 0-3 are strong against weak: weak loses 0 and 2, strong 3;
	// random loses games 8 and 9 against strong.
	forfeit(0, arena.ReasonTimeout)
	forfeit(2, arena.ReasonTimeout)
	forfeit(3, arena.ReasonExited)
	forfeit(8, arena.ReasonMalformedMove)
	forfeit(9, arena.ReasonIllegalMove)
	rep, err := New(records, contenders("strong", "weak", "random"), "random", testArena)
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]string][2]map[string]int{
		{"strong", "weak"}:   {{arena.ReasonExited: 1}, {arena.ReasonTimeout: 2}},
		{"weak", "random"}:   {nil, nil},
		{"strong", "random"}: {nil, {arena.ReasonIllegalMove: 1, arena.ReasonMalformedMove: 1}},
	}
	for _, p := range rep.Pairs {
		if w := want[[2]string{p.A, p.B}]; !reflect.DeepEqual(p.ForfeitsA, w[0]) || !reflect.DeepEqual(p.ForfeitsB, w[1]) {
			t.Errorf("pair %s-%s: forfeits %v and %v, want %v and %v", p.A, p.B, p.ForfeitsA, p.ForfeitsB, w[0], w[1])
		}
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Forfeits: ", "weak    strong   timeout             2\n", "random  strong   malformed move      1\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	if md := rep.Markdown(); !strings.Contains(md, "## Forfeits") || !strings.Contains(md, "| strong | weak | program exited | 1 |") {
		t.Errorf("Markdown lacks the forfeits:\n%s", md)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"forfeits_a":{"program exited":1},"forfeits_b":{"timeout":2}`) || strings.Count(string(data), "forfeits_") != 3 {
		t.Errorf("results.json: %s", data)
	}
}
