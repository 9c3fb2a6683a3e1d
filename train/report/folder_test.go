package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/train/arena"
)

func TestFolderHolds(t *testing.T) {
	cases := []struct {
		name   string
		folder func(dir string) Folder
		files  []string
		want   Holding
		file   string
	}{
		{"empty", EvaluationFolder, nil, HoldsNothing, ""},
		{"other files", EvaluationFolder, []string{"notes.txt", LadderResultsFile}, HoldsNothing, ""},
		{"finished", EvaluationFolder, []string{ResultsFile, GamesFile}, HoldsFinished, ResultsFile},
		{"unfinished", EvaluationFolder, []string{GamesJournal}, HoldsUnfinished, GamesJournal},
		{"both", EvaluationFolder, []string{ResultsFile, GamesJournal}, HoldsUnfinished, GamesJournal},
		{"finished ladder", LadderFolder, []string{LadderResultsFile, ResultsFile}, HoldsFinished, LadderResultsFile},
		{"unfinished ladder", LadderFolder, []string{LadderGamesJournal}, HoldsUnfinished, LadderGamesJournal},
		{"a link to nothing", EvaluationFolder, []string{"->" + ResultsFile}, HoldsFinished, ResultsFile},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, name := range tc.files {
				var err error
				if target, ok := strings.CutPrefix(name, "->"); ok {
					err = os.Symlink(filepath.Join(dir, "missing"), filepath.Join(dir, target))
				} else {
					err = os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if got, file := tc.folder(dir).Holds(); got != tc.want || file != tc.file {
				t.Errorf("Holds() = %v, %q; want %v, %q", got, file, tc.want, tc.file)
			}
		})
	}
	if got, file := EvaluationFolder(filepath.Join(t.TempDir(), "none")).Holds(); got != HoldsNothing || file != "" {
		t.Errorf("a folder that does not exist holds %v, %q", got, file)
	}
}

// testHeader is the header of the journal of an evaluation of six games.
func testHeader(seed uint64) arena.JournalHeader {
	return arena.JournalHeader{Journal: arena.JournalEval, Command: "deathstacks.evaluate(...)", CommandLanguage: "python", Total: 6,
		Players: []arena.JournalPlayer{{Name: "a", Spec: "random"}, {Name: "b", Spec: "greedy"}}, GamesPerPair: 6, Seed: seed}
}

// testOutput is dir as the output folder of an evaluation, named as a
// Python call names its settings.
func testOutput(dir string, resume bool) Output {
	return Output{Folder: EvaluationFolder(dir), What: "evaluation", Resume: resume, OutName: "out", Continue: "resume=True"}
}

// Check refuses what eval refuses, naming the folder, what it holds and
// what to do; it takes a folder that holds nothing, and a journal to
// resume.
func TestOutputCheck(t *testing.T) {
	game := arena.GameRecord{Game: 0, Red: "a", Blue: "b", Result: arena.ResultDraw}
	cases := []struct {
		name   string
		setup  func(t *testing.T, dir string)
		resume bool
		want   string // in the error; "" for none
	}{
		{"new in nothing", func(*testing.T, string) {}, false, ""},
		{"resume nothing", func(*testing.T, string) {}, true, "no unfinished evaluation in DIR"},
		{"new over finished", writeFiles(ResultsFile), false, "DIR holds a finished evaluation (results.json): choose another out, or remove DIR/results.json to replace it"},
		{"resume finished", writeFiles(ResultsFile), true, "DIR holds a finished evaluation; nothing to resume"},
		{"new over unfinished", writeJournal(game), false, "DIR holds an unfinished evaluation (1 game played of 6): continue it with resume=True, or choose another out"},
		{"new over two games", writeJournal(game, game), false, "(2 games played of 6)"},
		{"resume unfinished", writeJournal(game), true, ""},
		{"new over a bad journal", writeFiles(GamesJournal), false, "DIR holds an unfinished evaluation whose journal does not read: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			err := testOutput(dir, tc.resume).Check()
			want := strings.ReplaceAll(tc.want, "DIR", dir)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
				t.Errorf("Check() = %v, want %q", err, want)
			}
		})
	}
}

// writeFiles writes the files called names into the folder.
func writeFiles(names ...string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		for _, name := range names {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("{}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// writeJournal writes the journal of an unfinished evaluation holding
// games into the folder.
func writeJournal(games ...arena.GameRecord) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		j, err := arena.CreateJournal(filepath.Join(dir, GamesJournal), testHeader(1))
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		for _, g := range games {
			if err := j.Append(g); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Open starts a journal, and continues it with its games, its command and
// the command's language when the settings are the same; other settings
// are refused, naming the journal and the setting.
func TestOutputOpen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	j, played, command, language, err := testOutput(dir, false).Open(testHeader(1))
	if err != nil || len(played) != 0 || command != "deathstacks.evaluate(...)" || language != "python" {
		t.Fatalf("a new journal: %d games, %q, %q, %v", len(played), command, language, err)
	}
	game := arena.GameRecord{Game: 2, Red: "a", Blue: "b", Result: arena.ResultRedWins}
	if err := j.Append(game); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if held, _ := EvaluationFolder(dir).Holds(); held != HoldsUnfinished {
		t.Errorf("after Open the folder holds %v, want an unfinished evaluation", held)
	}
	again := testHeader(1)
	again.Command, again.CommandLanguage = "another call", ""
	j, played, command, language, err = testOutput(dir, true).Open(again)
	if err != nil || len(played) != 1 || played[0].Game != 2 || command != "deathstacks.evaluate(...)" || language != "python" {
		t.Fatalf("continued: %v, %q, %q, %v; want game 2 and the first call", played, command, language, err)
	}
	j.Close()
	_, _, _, _, err = testOutput(dir, true).Open(testHeader(2))
	want := filepath.Join(dir, GamesJournal) + `: seed is "2" here but "1" in the games played so far`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("another seed: %v, want %q", err, want)
	}
}
