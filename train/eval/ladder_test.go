package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/internal/charttest"
)

// ladderRun writes a tiny network snapshot for each iteration into a
// temporary directory and returns the run as a ladder sees it, with the
// given training times and the smoke config's rules and search.
func ladderRun(t *testing.T, iterations []int, elapsed map[int]float64) LadderRun {
	t.Helper()
	dir := t.TempDir()
	search := mcts.DefaultConfig()
	search.Simulations, search.BatchSize, search.Gumbel = 8, 4, true
	rules := env.DefaultRules()
	rules.MaxPlies = 60
	run := LadderRun{Dir: dir, Rules: rules, OpeningPlies: 2, Search: search, Server: model.ServerConfig{MaxBatch: 8, Workers: 1}}
	for _, it := range iterations {
		net, err := model.New(model.Config{Blocks: 1, Channels: 8, ValuePlanes: 1, ValueHidden: 8}, rand.New(rand.NewPCG(uint64(it), 1)))
		if err != nil {
			t.Fatal(err)
		}
		path := snapshotPath(dir, it)
		if err := net.Save(path); err != nil {
			t.Fatal(err)
		}
		sec, ok := elapsed[it]
		run.Snapshots = append(run.Snapshots, LadderSnapshot{Iteration: it, Path: path, ElapsedSec: sec, HasElapsed: ok})
	}
	return run
}

// snapshotPath is where ladderRun puts the snapshot of an iteration.
func snapshotPath(dir string, it int) string {
	return filepath.Join(dir, fmt.Sprintf("net-%06d.dsnn", it))
}

func TestNewLadderSnapshots(t *testing.T) {
	run := ladderRun(t, []int{1, 2, 3, 4, 5}, map[int]float64{1: 60, 2: 120, 4: 240, 5: 300})
	cases := []struct {
		every int
		want  []int
	}{
		{1, []int{1, 2, 3, 4, 5}},
		{2, []int{2, 4, 5}},
		{5, []int{5}},
		{10, []int{5}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("every %d", tc.every), func(t *testing.T) {
			l, err := NewLadder(LadderOptions{Runs: []LadderRun{run}, Every: tc.every, Simulations: 4, Games: 2, Parallel: 1})
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, s := range l.Runs()[0].Snapshots {
				got = append(got, s.Iteration)
				if s.Path != snapshotPath(run.Dir, s.Iteration) {
					t.Errorf("iteration %d: path %s", s.Iteration, s.Path)
				}
				if want := s.Iteration != 3; s.HasElapsed != want || (want && s.ElapsedSec != 60*float64(s.Iteration)) {
					t.Errorf("iteration %d: elapsed %v (%v)", s.Iteration, s.ElapsedSec, s.HasElapsed)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("snapshots %v, want %v", got, tc.want)
			}
			n, b := len(tc.want), 2
			if games := l.Games(b); games != 2*(n*b+n-1+1) {
				t.Errorf("%d games for %d snapshots and %d baselines", games, n, b)
			}
		})
	}
}

func TestNewLadderErrors(t *testing.T) {
	run := ladderRun(t, []int{1}, nil)
	empty := ladderRun(t, nil, nil)
	cases := []struct {
		name string
		opts LadderOptions
		want string
	}{
		{"every 0", LadderOptions{Runs: []LadderRun{run}, Every: 0, Simulations: 4, Games: 2, Parallel: 1}, "every is 0: want 1 or more"},
		{"no simulations", LadderOptions{Runs: []LadderRun{run}, Every: 1, Games: 2, Parallel: 1}, "simulations is 0 without a time: want 1 or more"},
		{"negative simulations", LadderOptions{Runs: []LadderRun{run}, Every: 1, Simulations: -1, Time: time.Second, Games: 2, Parallel: 1}, "simulations is -1: want 0 or more"},
		{"negative time", LadderOptions{Runs: []LadderRun{run}, Every: 1, Simulations: 4, Time: -time.Second, Games: 2, Parallel: 1}, "time is -1s: want 0 (none) or more"},
		{"no games", LadderOptions{Runs: []LadderRun{run}, Every: 1, Simulations: 4, Parallel: 1}, "games is 0: want 1 or more"},
		{"no parallel", LadderOptions{Runs: []LadderRun{run}, Every: 1, Simulations: 4, Games: 2}, "parallel is 0: want 1 or more"},
		{"no snapshots", LadderOptions{Runs: []LadderRun{empty}, Every: 1, Simulations: 4, Games: 2, Parallel: 1}, "no network snapshots"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewLadder(tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// The spec of a snapshot sets every search setting, whatever the loader's
// base settings are: eval plays it exactly as the ladder did.
func TestLadderSpecSetsEverySearchSetting(t *testing.T) {
	run := ladderRun(t, []int{1}, nil)
	l, err := NewLadder(LadderOptions{Runs: []LadderRun{run}, Every: 1, Simulations: 37, Games: 2, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	g := l.rungs[0]
	spec, err := players.ParseSpec(l.spec(g))
	if err != nil {
		t.Fatal(err)
	}
	if spec.Kind != players.KindAZ || spec.Model() != g.snap.Path {
		t.Errorf("spec %s: want az on %s", spec, g.snap.Path)
	}
	search := l.runs[0].search
	odd := mcts.Config{Simulations: 1, CPuct: 9, CPuctBase: 9, FPUReduction: 9, DirichletAlpha: 9, DirichletEpsilon: 0.9,
		Temperature: 9, TemperaturePlies: 9, FinalTemperature: 9, BatchSize: 9, VirtualLoss: 9, ReuseTree: !search.ReuseTree,
		Gumbel: !search.Gumbel, GumbelConsidered: 9, GumbelCVisit: 9, GumbelCScale: 9}
	for _, base := range []mcts.Config{mcts.DefaultConfig(), odd} {
		if got := spec.SearchConfig(base); got != search {
			t.Errorf("over %+v the spec gives %+v, want %+v", base, got, search)
		}
	}
	if search.Simulations != 37 || search.DirichletEpsilon != 0 || search.Temperature != 0 {
		t.Errorf("search %+v: want 37 simulations, no noise, no temperature", search)
	}
}

// A ladder at a time per move gives its snapshots that time, and says so.
func TestLadderTime(t *testing.T) {
	run := ladderRun(t, []int{1}, nil)
	for _, tc := range []struct {
		sims int
		want string
	}{{0, "50ms a move"}, {20, "20 simulations or 50ms a move, whichever ends first"}} {
		l, err := NewLadder(LadderOptions{Runs: []LadderRun{run}, Every: 1, Simulations: tc.sims, Time: 50 * time.Millisecond, Games: 2, Parallel: 1})
		if err != nil {
			t.Fatal(err)
		}
		spec, err := players.ParseSpec(l.spec(l.rungs[0]))
		if err != nil {
			t.Fatal(err)
		}
		if got := spec.SearchConfig(mcts.DefaultConfig()); got.Time != 50*time.Millisecond || got.Simulations != tc.sims {
			t.Errorf("snapshot searches %d simulations for %v: want %d for 50ms", got.Simulations, got.Time, tc.sims)
		}
		if got := l.report(&Report{}).budget(); got != tc.want {
			t.Errorf("budget %q, want %q", got, tc.want)
		}
	}
}

func TestLadderPlay(t *testing.T) {
	cases := []struct {
		name     string
		elapsed  map[int]float64
		timeAxis string
	}{
		{"training time", map[int]float64{1: 30, 2: 65, 3: 100}, "training time"},
		{"a snapshot without metrics", map[int]float64{1: 30, 3: 100}, "iteration"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := ladderRun(t, []int{1, 2, 3}, tc.elapsed)
			l, err := NewLadder(LadderOptions{Runs: []LadderRun{run}, Every: 1, Simulations: 4, Games: 2, Parallel: 2, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			var baselines []Contender
			for _, name := range []string{"greedy", "random"} {
				spec, _ := players.ParseSpec(name)
				baselines = append(baselines, SpecContender(name, spec, nil))
			}
			played := 0
			rep, records, err := l.Play(context.Background(), baselines, nil, func(GameRecord) { played++ })
			if err != nil {
				t.Fatal(err)
			}
			if want := l.Games(len(baselines)); len(records) != want || played != want || rep.Games != want {
				t.Errorf("%d records, %d reported, %d in the report: want %d", len(records), played, rep.Games, want)
			}
			for i, r := range records {
				if r.Game != i {
					t.Fatalf("record %d is numbered %d", i, r.Game)
				}
			}
			if rep.Anchor != "random" || rep.TimeAxis != tc.timeAxis || len(rep.Snapshots) != 3 || len(rep.Players) != 5 {
				t.Fatalf("report: anchor %s, axis %s, %d snapshots, %d players", rep.Anchor, rep.TimeAxis, len(rep.Snapshots), len(rep.Players))
			}
			// Pairs: the baselines, then each snapshot against both and
			// against the one before.
			if len(rep.Pairs) != 1+3*2+2 || rep.Pairs[0].A != "greedy" || rep.Pairs[len(rep.Pairs)-1].B != "iter-000003" {
				t.Errorf("pairs %+v", rep.Pairs)
			}
			// The pairs that check games played before are those played.
			for i, p := range l.pairs(baselines, l.schedule(len(baselines))) {
				if i >= len(rep.Pairs) || rep.Pairs[i].A != p[0] || rep.Pairs[i].B != p[1] {
					t.Errorf("pair %d is %v, but %+v played", i, p, rep.Pairs)
					break
				}
			}
			for _, p := range rep.Snapshots {
				st, ok := rep.standing(p.Name)
				if !ok || st.Elo != p.Elo || st.CI95 != p.CI95 || p.ElapsedSec != tc.elapsed[p.Iteration] {
					t.Errorf("snapshot %+v: standing %+v", p, st)
				}
			}
			dir := t.TempDir()
			if err := rep.Save(dir, records); err != nil {
				t.Fatal(err)
			}
			var back LadderReport
			data, err := os.ReadFile(filepath.Join(dir, LadderResultsFile))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &back); err != nil || len(back.Snapshots) != 3 || len(back.Pairs) != len(rep.Pairs) || back.Run != run.Dir {
				t.Errorf("ladder.json reads back as %+v (%v)", back, err)
			}
			md, err := os.ReadFile(filepath.Join(dir, LadderReportFile))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"# Ladder of ", "## Snapshots", "| 2 | ", "## Players", "## Pairs", "](ladder.png)", "simulations=4,"} {
				if !strings.Contains(string(md), want) {
					t.Errorf("ladder.md lacks %q", want)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, LadderGamesFile)); err != nil {
				t.Error(err)
			}
			charttest.CheckPNG(t, filepath.Join(dir, LadderChart))
		})
	}
}

func TestLadderPlayErrors(t *testing.T) {
	l, err := NewLadder(LadderOptions{Runs: []LadderRun{ladderRun(t, []int{1}, nil)}, Every: 1, Simulations: 2, Games: 2, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	clash := []Contender{{Spec: "random", Entrant: Entrant{Name: "iter-000001", New: func(seed uint64) (mcts.Player, error) {
		return players.NewRandomPlayer(seed), nil
	}}}}
	for _, tc := range []struct {
		name      string
		baselines []Contender
		want      string
	}{
		{"no baselines", nil, "no baseline"},
		{"a baseline named like a snapshot", clash, "called iter-000001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := l.Play(context.Background(), tc.baselines, nil, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestFormatSeconds(t *testing.T) {
	for _, tc := range []struct {
		sec  float64
		want string
	}{{0, "0m00s"}, {59.6, "1m00s"}, {200, "3m20s"}, {3600, "1h00m"}, {3725, "1h02m"}} {
		if got := formatSeconds(tc.sec); got != tc.want {
			t.Errorf("formatSeconds(%v) = %q, want %q", tc.sec, got, tc.want)
		}
	}
}

// A ladder given the games played before, cut anywhere (within a match,
// at a match's end, all but one), plays the rest and ends as the ladder
// played in one go; games it does not have are refused.
func TestLadderResume(t *testing.T) {
	run := ladderRun(t, []int{1, 2}, map[int]float64{1: 30, 2: 60})
	l, err := NewLadder(LadderOptions{Runs: []LadderRun{run}, Every: 1, Simulations: 4, Games: 2, Parallel: 1, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := players.ParseSpec("random")
	baselines := []Contender{SpecContender("random", spec, nil)}
	wantRep, full, err := l.Play(context.Background(), baselines, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(full) != 6 {
		t.Fatalf("%d games, want 6: 3 pairs of 2", len(full))
	}
	for _, k := range []int{1, 2, 3, 5, 6} {
		t.Run(fmt.Sprintf("cut after %d", k), func(t *testing.T) {
			var numbers []int
			rep, got, err := l.Play(context.Background(), baselines, slices.Clone(full[:k]), func(r GameRecord) { numbers = append(numbers, r.Game) })
			if err != nil {
				t.Fatal(err)
			}
			if want := []int{0, 1, 2, 3, 4, 5}[k:]; !slices.Equal(numbers, want) {
				t.Errorf("games played now %v, want %v", numbers, want)
			}
			if !reflect.DeepEqual(untimed(t, got), untimed(t, slices.Clone(full))) {
				t.Error("the resumed ladder's games differ from the one played in one go")
			}
			if !reflect.DeepEqual(rep.Snapshots, wantRep.Snapshots) || !reflect.DeepEqual(rep.Pairs, wantRep.Pairs) {
				t.Errorf("ratings %+v, want %+v", rep.Snapshots, wantRep.Snapshots)
			}
		})
	}
	for _, tc := range []struct {
		name   string
		played []GameRecord
		want   string
	}{
		{"past the last game", []GameRecord{func() GameRecord { r := full[5]; r.Game = 6; return r }()}, "game 6: the ladder has games 0 to 5"},
		{"in another match's place", []GameRecord{func() GameRecord { r := full[0]; r.Game = 2; return r }()}, "games 2 to 3, iter-000002 against random: a game given as played is not this tournament's: game 0: it is iter-000001 against random"},
		{"a bad one among good ones", []GameRecord{full[0], full[1], func() GameRecord { r := full[5]; r.RedSeed++; return r }()}, "games 4 to 5, iter-000001 against iter-000002: a game given as played is not this tournament's: game 1: its seeds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := l.Play(context.Background(), baselines, tc.played, nil)
			if !errors.Is(err, ErrPlayedGame) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrPlayedGame and %q", err, tc.want)
			}
		})
	}
}
