package ladder

import (
	"path/filepath"

	"github.com/deathstacks/deathstacks/train/arena"
)

// JournalHeader returns the header of the journal of the ladder played
// against baselines, started by the command line command. A ladder of one
// run keeps it in the fields of a ladder before several runs, so that
// their journals still continue; one of several lists them in Runs.
func (l *Ladder) JournalHeader(baselines []arena.Contender, command string) arena.JournalHeader {
	h := arena.NewJournalHeader(baselines, l.config(), command)
	h.Journal, h.Total = arena.JournalLadder, l.Games(len(baselines))
	h.Ladder = &arena.JournalLadderSettings{Every: l.opts.Every, Simulations: l.opts.Simulations, TimeMS: l.opts.timeMS()}
	runs := make([]arena.JournalRun, len(l.runs))
	for i, r := range l.runs {
		runs[i] = arena.JournalRun{Name: r.Name, Dir: absPath(r.Dir), Search: searchKeys(r.search)}
		for _, s := range r.Snapshots {
			runs[i].Snapshots = append(runs[i].Snapshots, arena.JournalSnapshot{Iteration: s.Iteration, Path: absPath(s.Path)})
		}
	}
	if len(runs) == 1 {
		h.Ladder.Run, h.Ladder.Search, h.Ladder.Snapshots = runs[0].Dir, runs[0].Search, runs[0].Snapshots
	} else {
		h.Ladder.Runs = runs
	}
	return h
}

// absPath returns the absolute form of path, or path cleaned if the
// working directory is unknown.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}
