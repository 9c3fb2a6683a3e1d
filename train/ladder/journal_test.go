package ladder

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/report"
)

// A ladder's journal header holds what decides its games, the runs and
// snapshots by absolute path, and not how many games run at once
// (package arena tests how headers compare).
func TestJournalHeader(t *testing.T) {
	run := ladderRun(t, []int{1, 2}, nil)
	opts := Options{Networks: newTestNetworks(t), Runs: []Run{run}, Every: 1, Simulations: 4, Time: 1500 * time.Microsecond, Games: 2, Parallel: 1}
	l, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h := l.JournalHeader(contendersOf("random"), "deathstacks ladder --run "+run.Dir)
	want := &arena.JournalLadderSettings{Run: run.Dir, Every: 1, Simulations: 4, TimeMS: 1.5, Search: searchKeys(l.runs[0].search),
		Snapshots: []arena.JournalSnapshot{{Iteration: 1, Path: snapshotPath(run.Dir, 1)}, {Iteration: 2, Path: snapshotPath(run.Dir, 2)}}}
	if h.Journal != arena.JournalLadder || h.Total != l.Games(1) || len(h.Players) != 1 || h.Players[0] != (arena.JournalPlayer{Name: "random", Spec: "random"}) ||
		h.GamesPerPair != 2 || !reflect.DeepEqual(h.Ladder, want) {
		t.Errorf("header %+v, ladder %+v: want %+v", h, h.Ladder, want)
	}
	opts.Parallel = 5
	more, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Mismatch(more.JournalHeader(contendersOf("random"), "another command")); err != nil {
		t.Errorf("with more games at once: %v", err)
	}
}

// The journal of a ladder of several runs keeps every run: a journal
// reads back to its header, and a resume with other runs, or the same
// runs otherwise named, ordered or rated, is refused, naming the setting.
func TestJournalHeaderSeveralRuns(t *testing.T) {
	runs := twoRuns(t)
	baselines := contendersOf("random")
	header := func(runs ...Run) arena.JournalHeader {
		l, err := New(Options{Networks: newTestNetworks(t), Runs: runs, Every: 1, Simulations: 4, Games: 2, Parallel: 1})
		if err != nil {
			t.Fatal(err)
		}
		return l.JournalHeader(baselines, "deathstacks ladder --run long="+runs[0].Dir)
	}
	h := header(runs...)
	if h.Ladder.Run != "" || h.Ladder.Snapshots != nil || len(h.Ladder.Runs) != 2 || h.Ladder.Runs[1].Name != "short" ||
		len(h.Ladder.Runs[1].Snapshots) != 3 || !strings.Contains(h.Ladder.Runs[1].Search, "c_puct=2,") || h.Total != 2*(3+5+1) {
		t.Fatalf("header %+v", h.Ladder)
	}
	back, err := readHeader(t, h)
	if err != nil || !reflect.DeepEqual(back, h) {
		t.Errorf("the header reads back as %+v (%v), want %+v", back, err, h)
	}
	renamed := runs[1]
	renamed.Name = "other"
	moved := runs[1]
	moved.Snapshots = slices.Clone(moved.Snapshots)
	moved.Snapshots[2].Path = "/elsewhere/net-000003.dsnn"
	for _, tc := range []struct {
		name string
		now  arena.JournalHeader
		want string
	}{
		{"the same", header(runs...), ""},
		{"one run of the two", header(runs[0]), `runs is "1" here but "2"`},
		{"a run renamed", header(runs[0], renamed), `run 2 name is "other" here but "short"`},
		{"the runs swapped", header(runs[1], runs[0]), `run 1 name is "short" here but "long"`},
		{"a snapshot elsewhere", header(runs[0], moved), `run 2 snapshot 3 is "iteration 3 (/elsewhere/net-000003.dsnn)" here`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := h.Mismatch(tc.now)
			if tc.want == "" {
				if err != nil {
					t.Errorf("Mismatch: %v, want none", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Mismatch: %v, want %q", err, tc.want)
			}
		})
	}
}

// readHeader writes a journal of the header alone and reads it back.
func readHeader(t *testing.T, h arena.JournalHeader) (arena.JournalHeader, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), report.LadderGamesJournal)
	j, err := arena.CreateJournal(path, h)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	back, _, err := arena.ReadJournal(path)
	return back, err
}
