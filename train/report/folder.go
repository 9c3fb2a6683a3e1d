package report

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/deathstacks/deathstacks/train/arena"
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

// Holding is what an output folder holds, as [Folder.Holds] finds it.
type Holding int

const (
	// HoldsNothing is a folder with neither file, or none at all: it may
	// take new games.
	HoldsNothing Holding = iota
	// HoldsUnfinished is a folder with the journal of games in progress.
	HoldsUnfinished
	// HoldsFinished is a folder with the results of finished games.
	HoldsFinished
)

// Holds returns what the folder holds and the name of the file that shows
// it ("" for nothing). A journal beside results shows an unfinished one:
// its games are not all in the results.
func (f Folder) Holds() (Holding, string) {
	for _, h := range []Holding{HoldsUnfinished, HoldsFinished} {
		name := f.Journal
		if h == HoldsFinished {
			name = f.Results
		}
		if _, err := os.Lstat(f.Path(name)); err == nil {
			return h, name
		}
	}
	return HoldsNothing, ""
}

// Output is an output folder with what its caller asks of it, named as
// the caller names its settings, for the errors that refuse it: the eval
// and ladder commands, and the C library's evaluate.
type Output struct {
	Folder
	// What is what plays into it, such as "eval", "ladder" or
	// "evaluation".
	What string
	// Resume asks to continue the unfinished one the folder holds.
	Resume bool
	// OutName names the setting that gives the folder, such as "--out";
	// Continue says how to continue an unfinished one, such as "the same
	// command and --resume".
	OutName, Continue string
}

// Check decides, before any player is built, whether the folder takes
// the games asked for: it refuses to resume what holds no journal, and
// to start afresh over a journal or results, which would be lost.
func (o Output) Check() error {
	held, file := o.Holds()
	switch {
	case held == HoldsFinished && !o.Resume:
		return fmt.Errorf("%s holds a finished %s (%s): choose another %s, or remove %s to replace it", o.Dir, o.What, file, o.OutName, o.Path(file))
	case held == HoldsFinished:
		return fmt.Errorf("%s holds a finished %s; nothing to resume", o.Dir, o.What)
	case held == HoldsNothing && o.Resume:
		return fmt.Errorf("no unfinished %s in %s", o.What, o.Dir)
	case held == HoldsUnfinished && !o.Resume:
		h, played, err := arena.ReadJournal(o.Path(file))
		if err != nil {
			return fmt.Errorf("%s holds an unfinished %s whose journal does not read: %w", o.Dir, o.What, err)
		}
		games := "games"
		if len(played) == 1 {
			games = "game"
		}
		return fmt.Errorf("%s holds an unfinished %s (%d %s played of %d): continue it with %s, or choose another %s",
			o.Dir, o.What, len(played), games, h.Total, o.Continue, o.OutName)
	}
	return nil
}

// Open starts the journal of the games that header describes, or when
// resuming continues the one in the folder after checking it is of the
// same games. It returns the games played so far and the command that
// started them, which is the one that replays them, with its language
// (see [Report.CommandLanguage]). Call [Output.Check] first.
func (o Output) Open(header arena.JournalHeader) (j *arena.Journal, played []arena.GameRecord, command, language string, err error) {
	path := o.Path(o.Journal)
	if !o.Resume {
		if err := os.MkdirAll(o.Dir, 0o755); err != nil {
			return nil, nil, "", "", err
		}
		j, err := arena.CreateJournal(path, header)
		return j, nil, header.Command, header.CommandLanguage, err
	}
	j, was, played, err := arena.ContinueJournal(path)
	if err != nil {
		return nil, nil, "", "", err
	}
	if err := was.Mismatch(header); err != nil {
		j.Close()
		return nil, nil, "", "", fmt.Errorf("%s: %w", path, err)
	}
	return j, played, was.Command, was.CommandLanguage, nil
}
