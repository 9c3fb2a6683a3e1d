package report

import (
	"os"
	"path/filepath"
)

// Folder is the output folder of an evaluation or a ladder, with the
// names of the two files that say what it holds: the results a finished
// one leaves, and the journal of the games of an unfinished one.
type Folder struct {
	Dir, Results, Journal string
}

// EvaluationFolder is dir as the output folder of an evaluation
// (deathstacks eval --out, deathstacks.evaluate's out).
func EvaluationFolder(dir string) Folder {
	return Folder{Dir: dir, Results: ResultsFile, Journal: GamesJournal}
}

// LadderFolder is dir as the output folder of a ladder.
func LadderFolder(dir string) Folder {
	return Folder{Dir: dir, Results: LadderResultsFile, Journal: LadderGamesJournal}
}

// Path returns the path of the file called name in the folder.
func (f Folder) Path(name string) string { return filepath.Join(f.Dir, name) }

// Holding returns the name of the file that shows the folder holds
// games: f.Journal for an unfinished evaluation (or ladder), f.Results for
// a finished one, or "" when it holds neither, and so may take a new one.
func (f Folder) Holding() string {
	for _, name := range []string{f.Journal, f.Results} {
		if _, err := os.Lstat(f.Path(name)); err == nil {
			return name
		}
	}
	return ""
}
