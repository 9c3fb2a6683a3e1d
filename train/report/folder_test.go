package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFolderHolding(t *testing.T) {
	cases := []struct {
		name   string
		folder func(dir string) Folder
		files  []string
		want   string
	}{
		{"empty", EvaluationFolder, nil, ""},
		{"other files", EvaluationFolder, []string{"notes.txt", LadderResultsFile}, ""},
		{"finished", EvaluationFolder, []string{ResultsFile, GamesFile}, ResultsFile},
		{"unfinished", EvaluationFolder, []string{GamesJournal}, GamesJournal},
		{"both", EvaluationFolder, []string{ResultsFile, GamesJournal}, GamesJournal},
		{"finished ladder", LadderFolder, []string{LadderResultsFile, ResultsFile}, LadderResultsFile},
		{"unfinished ladder", LadderFolder, []string{LadderGamesJournal}, LadderGamesJournal},
		{"a link to nothing", EvaluationFolder, []string{"->" + ResultsFile}, ResultsFile},
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
			if got := tc.folder(dir).Holding(); got != tc.want {
				t.Errorf("Holding() = %q, want %q", got, tc.want)
			}
		})
	}
	if got := EvaluationFolder(filepath.Join(t.TempDir(), "none")).Holding(); got != "" {
		t.Errorf("a folder that does not exist holds %q", got)
	}
}
