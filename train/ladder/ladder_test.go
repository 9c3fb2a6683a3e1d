package ladder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/internal/charttest"
	"github.com/deathstacks/deathstacks/train/report"
)

// ladderRun writes a tiny network snapshot for each iteration into a
// temporary directory and returns the run as a ladder sees it, with the
// given training times and the smoke config's rules and search.
func ladderRun(t *testing.T, iterations []int, elapsed map[int]float64) Run {
	t.Helper()
	dir := t.TempDir()
	search := mcts.DefaultConfig()
	search.Simulations, search.BatchSize, search.Gumbel = 8, 4, true
	rules := env.DefaultRules()
	rules.MaxPlies = 60
	run := Run{Dir: dir, Rules: rules, OpeningPlies: 2}
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
		run.Snapshots = append(run.Snapshots, Snapshot{Iteration: it, Path: path, Search: search, ElapsedSec: sec, HasElapsed: ok})
	}
	return run
}

// testNetworks serves the snapshots of the tests' ladders, each through a
// batching server of its own, as package train's Models does.
type testNetworks struct {
	mu      sync.Mutex
	servers map[string]*model.Server
}

// newTestNetworks returns an empty testNetworks whose servers stop when
// the test ends.
func newTestNetworks(t *testing.T) *testNetworks {
	n := &testNetworks{servers: map[string]*model.Server{}}
	t.Cleanup(func() {
		for path := range n.servers {
			n.Release(path)
		}
	})
	return n
}

func (n *testNetworks) Load(path string) (mcts.Evaluator, mcts.Config, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if srv, ok := n.servers[path]; ok {
		return srv, mcts.DefaultConfig(), nil
	}
	net, err := model.Load(path)
	if err != nil {
		return nil, mcts.Config{}, err
	}
	srv, err := model.NewServer(net, model.ServerConfig{MaxBatch: 8, Workers: 1})
	if err != nil {
		return nil, mcts.Config{}, err
	}
	n.servers[path] = srv
	return srv, mcts.DefaultConfig(), nil
}

func (n *testNetworks) Release(path string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if srv, ok := n.servers[path]; ok {
		delete(n.servers, path)
		srv.Close()
	}
	return nil
}

// snapshotPath is where ladderRun puts the snapshot of an iteration.
func snapshotPath(dir string, it int) string {
	return filepath.Join(dir, fmt.Sprintf("net-%06d.dsnn", it))
}

func TestNewSnapshots(t *testing.T) {
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
			l, err := New(Options{Networks: newTestNetworks(t), Runs: []Run{run}, Every: tc.every, Simulations: 4, Games: 2, Parallel: 1})
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

func TestNewErrors(t *testing.T) {
	run := ladderRun(t, []int{1}, nil)
	empty := ladderRun(t, nil, nil)
	cases := []struct {
		name string
		opts Options
		want string
	}{
		{"every 0", Options{Networks: newTestNetworks(t), Runs: []Run{run}, Every: 0, Simulations: 4, Games: 2, Parallel: 1}, "every is 0: want 1 or more"},
		{"no simulations", Options{Networks: newTestNetworks(t), Runs: []Run{run}, Every: 1, Games: 2, Parallel: 1}, "simulations is 0 without a time: want 1 or more"},
		{"negative simulations", Options{Networks: newTestNetworks(t), Runs: []Run{run}, Every: 1, Simulations: -1, Time: time.Second, Games: 2, Parallel: 1}, "simulations is -1: want 0 or more"},
		{"negative time", Options{Networks: newTestNetworks(t), Runs: []Run{run}, Every: 1, Simulations: 4, Time: -time.Second, Games: 2, Parallel: 1}, "time is -1s: want 0 (none) or more"},
		{"no games", Options{Networks: newTestNetworks(t), Runs: []Run{run}, Every: 1, Simulations: 4, Parallel: 1}, "games is 0: want 1 or more"},
		{"no parallel", Options{Networks: newTestNetworks(t), Runs: []Run{run}, Every: 1, Simulations: 4, Games: 2}, "parallel is 0: want 1 or more"},
		{"no snapshots", Options{Networks: newTestNetworks(t), Runs: []Run{empty}, Every: 1, Simulations: 4, Games: 2, Parallel: 1}, "no network snapshots"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.opts)
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
	l, err := New(Options{Networks: newTestNetworks(t), Runs: []Run{run}, Every: 1, Simulations: 37, Games: 2, Parallel: 1})
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

// A ladder at a time per move gives its snapshots that time, and its
// report says so (package report tests how it writes it).
func TestLadderTime(t *testing.T) {
	run := ladderRun(t, []int{1}, nil)
	for _, tc := range []struct {
		sims int
	}{{0}, {20}} {
		l, err := New(Options{Networks: newTestNetworks(t), Runs: []Run{run}, Every: 1, Simulations: tc.sims, Time: 50 * time.Millisecond, Games: 2, Parallel: 1})
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
		if rep := l.report(&report.Report{}); rep.Simulations != tc.sims || rep.TimeMS != 50 {
			t.Errorf("the report says %d simulations and %vms a move, want %d and 50", rep.Simulations, rep.TimeMS, tc.sims)
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
			l, err := New(Options{Networks: newTestNetworks(t), Runs: []Run{run}, Every: 1, Simulations: 4, Games: 2, Parallel: 2, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			baselines := contendersOf("greedy", "random")
			played := 0
			rep, records, err := l.Play(context.Background(), baselines, nil, func(arena.GameRecord) { played++ })
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
				st, ok := rep.Player(p.Name)
				if !ok || st.Elo != p.Elo || st.CI95 != p.CI95 || p.ElapsedSec != tc.elapsed[p.Iteration] {
					t.Errorf("snapshot %+v: standing %+v", p, st)
				}
			}
			dir := t.TempDir()
			if err := rep.Save(dir, records); err != nil {
				t.Fatal(err)
			}
			var back report.LadderReport
			data, err := os.ReadFile(filepath.Join(dir, report.LadderResultsFile))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &back); err != nil || len(back.Snapshots) != 3 || len(back.Pairs) != len(rep.Pairs) || back.Run != run.Dir {
				t.Errorf("ladder.json reads back as %+v (%v)", back, err)
			}
			md, err := os.ReadFile(filepath.Join(dir, report.LadderReportFile))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"# Ladder of ", "## Snapshots", "| 2 | ", "## Players", "## Pairs", "](ladder.png)", "simulations=4,"} {
				if !strings.Contains(string(md), want) {
					t.Errorf("ladder.md lacks %q", want)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, report.LadderGamesFile)); err != nil {
				t.Error(err)
			}
			charttest.CheckPNG(t, filepath.Join(dir, report.LadderChart))
		})
	}
}

func TestLadderPlayErrors(t *testing.T) {
	l, err := New(Options{Networks: newTestNetworks(t), Runs: []Run{ladderRun(t, []int{1}, nil)}, Every: 1, Simulations: 2, Games: 2, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	clash := []arena.Contender{{Spec: "random", Entrant: arena.Entrant{Name: "iter-000001", New: func(seed uint64) (mcts.Player, error) {
		return players.NewRandomPlayer(seed), nil
	}}}}
	for _, tc := range []struct {
		name      string
		baselines []arena.Contender
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

// playLadder plays the ladder of opts against baselines in one go.
func playLadder(t *testing.T, opts Options, baselines []arena.Contender) (*Ladder, *report.LadderReport, []arena.GameRecord) {
	t.Helper()
	l, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	rep, records, err := l.Play(context.Background(), baselines, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return l, rep, records
}

// A ladder given the games played before, cut anywhere (within a match,
// at a match's end, all but one; with two runs, in the match of their
// latest snapshots too), plays the rest and ends as the ladder played in
// one go.
func TestLadderResume(t *testing.T) {
	baselines := contendersOf("random")
	one := Options{Networks: newTestNetworks(t), Runs: []Run{ladderRun(t, []int{1, 2}, map[int]float64{1: 30, 2: 60})}, Every: 1, Simulations: 4, Games: 2, Parallel: 1, Seed: 5}
	two := one
	two.Runs, two.Every = twoRuns(t), 2
	for _, tc := range []struct {
		name  string
		opts  Options
		games int
		cuts  []int
	}{
		{"one run", one, 6, []int{1, 2, 3, 5, 6}}, // 3 pairs of 2
		// long 2, short 2 and 3: each against random; short 2 against 3;
		// long 2 against short 3: 5 pairs of 2.
		{"two runs", two, 10, []int{3, 8, 9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, wantRep, full := playLadder(t, tc.opts, baselines)
			if len(full) != tc.games {
				t.Fatalf("%d games, want %d", len(full), tc.games)
			}
			for _, k := range tc.cuts {
				t.Run(fmt.Sprintf("cut after %d", k), func(t *testing.T) {
					var numbers []int
					rep, got, err := l.Play(context.Background(), baselines, slices.Clone(full[:k]), func(r arena.GameRecord) { numbers = append(numbers, r.Game) })
					if err != nil {
						t.Fatal(err)
					}
					if want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}[k:tc.games]; !slices.Equal(numbers, want) {
						t.Errorf("games played now %v, want %v", numbers, want)
					}
					if !reflect.DeepEqual(withoutTimes(got), withoutTimes(full)) {
						t.Error("the resumed ladder's games differ from the one played in one go")
					}
					if !reflect.DeepEqual(rep.Snapshots, wantRep.Snapshots) || !reflect.DeepEqual(rep.Pairs, wantRep.Pairs) {
						t.Errorf("ratings %+v, want %+v", rep.Snapshots, wantRep.Snapshots)
					}
				})
			}
		})
	}
}

// Games given as played that are not the ladder's are refused before any
// game is played.
func TestLadderResumeRefusals(t *testing.T) {
	baselines := contendersOf("random")
	l, _, full := playLadder(t, Options{Networks: newTestNetworks(t), Runs: []Run{ladderRun(t, []int{1, 2}, nil)}, Every: 1, Simulations: 4, Games: 2, Parallel: 1, Seed: 5}, baselines)
	for _, tc := range []struct {
		name   string
		played []arena.GameRecord
		want   string
	}{
		{"past the last game", []arena.GameRecord{func() arena.GameRecord { r := full[5]; r.Game = 6; return r }()}, "game 6: the ladder has games 0 to 5"},
		{"in another match's place", []arena.GameRecord{func() arena.GameRecord { r := full[0]; r.Game = 2; return r }()}, "games 2 to 3, iter-000002 against random: a game given as played is not this tournament's: game 0: it is iter-000001 against random"},
		{"a bad one among good ones", []arena.GameRecord{full[0], full[1], func() arena.GameRecord { r := full[5]; r.RedSeed++; return r }()}, "games 4 to 5, iter-000001 against iter-000002: a game given as played is not this tournament's: game 1: its seeds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			played := 0
			_, _, err := l.Play(context.Background(), baselines, tc.played, func(arena.GameRecord) { played++ })
			if !errors.Is(err, arena.ErrPlayedGame) || !strings.Contains(err.Error(), tc.want) || played != 0 {
				t.Errorf("err = %v after %d games, want arena.ErrPlayedGame and %q before any", err, played, tc.want)
			}
		})
	}
}

// twoRuns returns two named runs sharing rules and openings: long with
// snapshots 1 and 2, and short with 1 to 3 and another search (c_puct 2).
func twoRuns(t *testing.T) []Run {
	t.Helper()
	long := ladderRun(t, []int{1, 2}, map[int]float64{1: 40, 2: 80})
	long.Name = "long"
	short := ladderRun(t, []int{1, 2, 3}, map[int]float64{1: 20, 2: 45, 3: 70})
	short.Name = "short"
	for i := range short.Snapshots {
		short.Snapshots[i].Search.CPuct = 2
	}
	return []Run{long, short}
}

func TestNewRunsErrors(t *testing.T) {
	cases := []struct {
		name   string
		change func(runs []Run)
		want   string
	}{
		{"the same name", func(runs []Run) { runs[1].Name = "long" }, "are both called long"},
		{"no name", func(runs []Run) { runs[1].Name = "" }, "has no name"},
		{"another move limit", func(runs []Run) { runs[1].Rules.MaxPlies = 80 }, "differ in env.rules.max_plies: 60 and 80"},
		{"no too-tall rule", func(runs []Run) { runs[1].Rules.TooTall = false }, "differ in env.rules.too_tall: true and false"},
		{"another repetition limit", func(runs []Run) { runs[1].Rules.RepetitionLimit = 2 }, "differ in env.rules.repetitions: 3 and 2"},
		{"other openings", func(runs []Run) { runs[1].OpeningPlies = 4 }, "differ in eval.opening_plies: 2 and 4"},
		{"a run without snapshots", func(runs []Run) { runs[1].Snapshots = nil }, "has no network snapshots"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			runs := twoRuns(t)
			tc.change(runs)
			_, err := New(Options{Networks: newTestNetworks(t), Runs: runs, Every: 1, Simulations: 4, Games: 2, Parallel: 1})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if strings.Contains(tc.want, "differ") && !strings.Contains(err.Error(), "runs long ("+runs[0].Dir+") and short ("+runs[1].Dir+")") {
				t.Errorf("error %v: want both runs named with their directories", err)
			}
		})
	}
	if _, err := New(Options{Networks: newTestNetworks(t), Every: 1, Simulations: 4, Games: 2, Parallel: 1}); err == nil || !strings.Contains(err.Error(), "no runs") {
		t.Errorf("no runs: error %v", err)
	}
}

// A ladder of two runs names the snapshots after their runs, plays each
// run's ladder, the latest of one against the latest of the other, and
// rates everyone in one fit; each run's players search as that run does.
func TestLadderSeveralRuns(t *testing.T) {
	runs := twoRuns(t)
	for _, tc := range []struct {
		every int
		want  []string // the snapshots' players
		pairs [][2]string
	}{
		{1, []string{"long/iter-000001", "long/iter-000002", "short/iter-000001", "short/iter-000002", "short/iter-000003"}, [][2]string{
			{"greedy", "random"},
			{"long/iter-000001", "greedy"}, {"long/iter-000001", "random"},
			{"long/iter-000002", "greedy"}, {"long/iter-000002", "random"}, {"long/iter-000001", "long/iter-000002"},
			{"short/iter-000001", "greedy"}, {"short/iter-000001", "random"},
			{"short/iter-000002", "greedy"}, {"short/iter-000002", "random"}, {"short/iter-000001", "short/iter-000002"},
			{"short/iter-000003", "greedy"}, {"short/iter-000003", "random"}, {"short/iter-000002", "short/iter-000003"},
			{"long/iter-000002", "short/iter-000003"},
		}},
		{2, []string{"long/iter-000002", "short/iter-000002", "short/iter-000003"}, [][2]string{
			{"greedy", "random"},
			{"long/iter-000002", "greedy"}, {"long/iter-000002", "random"},
			{"short/iter-000002", "greedy"}, {"short/iter-000002", "random"},
			{"short/iter-000003", "greedy"}, {"short/iter-000003", "random"}, {"short/iter-000002", "short/iter-000003"},
			{"long/iter-000002", "short/iter-000003"},
		}},
	} {
		t.Run(fmt.Sprintf("every %d", tc.every), func(t *testing.T) {
			l, err := New(Options{Networks: newTestNetworks(t), Runs: runs, Every: tc.every, Simulations: 4, Games: 2, Parallel: 2, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			baselines := contendersOf("greedy", "random")
			if got := l.pairs(baselines, l.schedule(len(baselines))); !reflect.DeepEqual(got, tc.pairs) {
				t.Errorf("pairs %v, want %v", got, tc.pairs)
			}
			if got, want := l.Games(len(baselines)), 2*len(tc.pairs); got != want {
				t.Errorf("%d games, want %d", got, want)
			}
			rep, records, err := l.Play(context.Background(), baselines, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(records) != 2*len(tc.pairs) || rep.Games != len(records) {
				t.Errorf("%d records, %d in the report: want %d", len(records), rep.Games, 2*len(tc.pairs))
			}
			for i, p := range tc.pairs {
				if i >= len(rep.Pairs) || rep.Pairs[i].A != p[0] || rep.Pairs[i].B != p[1] || rep.Pairs[i].Games != 2 {
					t.Errorf("pair %d: want %v with 2 games, have %+v", i, p, rep.Pairs)
					break
				}
			}
			// One fit: every player of both runs and the baselines, one anchor.
			if rep.Anchor != "random" || len(rep.Players) != 2+len(tc.want) {
				t.Errorf("anchor %s, %d players: want random and %d", rep.Anchor, len(rep.Players), 2+len(tc.want))
			}
			var names []string
			for _, p := range rep.Snapshots {
				names = append(names, p.Name)
				st, ok := rep.Player(p.Name)
				if !ok || st.Elo != p.Elo || st.CI95 != p.CI95 || p.Run != strings.Split(p.Name, "/")[0] {
					t.Errorf("snapshot %+v: standing %+v", p, st)
				}
				cPuct := "c_puct=1.25,"
				if p.Run == "short" {
					cPuct = "c_puct=2,"
				}
				if !strings.Contains(st.Spec, cPuct) || !strings.Contains(st.Spec, ",simulations=4,") {
					t.Errorf("%s plays %s: want its run's search (%s) at 4 simulations", p.Name, st.Spec, cPuct)
				}
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("snapshots %v, want %v", names, tc.want)
			}
			if rep.Run != runs[0].Dir || rep.TimeAxis != "training time" || len(rep.Runs) != 2 || rep.Runs[1] != (report.LadderReportRun{Name: "short", Dir: runs[1].Dir, Search: searchKeys(l.runs[1].search)}) {
				t.Errorf("report: run %s, axis %s, runs %+v", rep.Run, rep.TimeAxis, rep.Runs)
			}
			checkSeveralRunsFiles(t, rep, records)
		})
	}
}

// checkSeveralRunsFiles saves the report of a ladder of the two runs of
// twoRuns and checks its files.
func checkSeveralRunsFiles(t *testing.T, rep *report.LadderReport, records []arena.GameRecord) {
	t.Helper()
	dir := t.TempDir()
	if err := rep.Save(dir, records); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Run  string `json:"run"`
		Runs []struct {
			Name, Dir, Search string
		} `json:"runs"`
		Search    string `json:"search"`
		Snapshots []struct {
			Name string `json:"name"`
			Run  string `json:"run"`
		} `json:"snapshots"`
	}
	data, err := os.ReadFile(filepath.Join(dir, report.LadderResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Run != rep.Runs[0].Dir || len(got.Runs) != 2 || got.Runs[0].Name != "long" || got.Runs[1].Dir != rep.Runs[1].Dir ||
		got.Search != rep.Runs[0].Search || !strings.Contains(got.Runs[1].Search, "c_puct=2,") {
		t.Errorf("ladder.json: run %s, runs %+v, search %s", got.Run, got.Runs, got.Search)
	}
	for _, s := range got.Snapshots {
		if !strings.HasPrefix(s.Name, s.Run+"/iter-") {
			t.Errorf("ladder.json: snapshot %s of run %q", s.Name, s.Run)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, report.LadderReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Ladder of long, short\n", "- run long: " + rep.Runs[0].Dir, "- run short: " + rep.Runs[1].Dir,
		"the latest snapshot of each run against the latest of every other run", "| run | iteration | training time | player |", "| short | 3 | 1m10s | short/iter-000003 |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("ladder.md lacks %q:\n%s", want, md)
		}
	}
	charttest.CheckPNG(t, filepath.Join(dir, report.LadderChart))
}

// With one run, ladder.json has the keys it had before ladders of several
// runs: no "runs", no "run" per snapshot, and the plain snapshot names.
func TestLadderOneRunJSONKeys(t *testing.T) {
	l, rep, _ := playLadder(t, Options{Networks: newTestNetworks(t), Runs: []Run{ladderRun(t, []int{1}, map[int]float64{1: 30})}, Every: 1, Simulations: 2, Games: 2, Parallel: 1}, contendersOf("random"))
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Top       map[string]json.RawMessage
		Snapshots []map[string]json.RawMessage `json:"snapshots"`
	}
	if err := json.Unmarshal(data, &got.Top); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	wantTop := []string{"anchor", "date", "duration_sec", "games", "games_per_pair", "opening_plies", "pairs", "players", "rules", "run", "search", "seed", "simulations", "snapshots", "time_axis"}
	if keys := slices.Sorted(maps.Keys(got.Top)); !slices.Equal(keys, wantTop) {
		t.Errorf("ladder.json keys %v, want %v", keys, wantTop)
	}
	wantSnap := []string{"ci95", "elapsed_sec", "elo", "iteration", "name"}
	if len(got.Snapshots) != 1 || !slices.Equal(slices.Sorted(maps.Keys(got.Snapshots[0])), wantSnap) || string(got.Snapshots[0]["name"]) != `"iter-000001"` {
		t.Errorf("ladder.json snapshots %s, want one iter-000001 with keys %v", got.Top["snapshots"], wantSnap)
	}
	header, err := json.Marshal(l.JournalHeader(nil, "c"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(header), `"runs"`) || !strings.Contains(string(header), `"snapshots":[{"iteration":1,`) {
		t.Errorf("one run's journal header %s: want its snapshots as before, no runs", header)
	}
}

// contendersOf returns the baseline players of these kinds, such as
// random, each called by its kind.
func contendersOf(kinds ...string) []arena.Contender {
	out := make([]arena.Contender, len(kinds))
	for i, kind := range kinds {
		out[i] = arena.SpecContender(kind, players.Spec{Kind: kind}, nil)
	}
	return out
}

// withoutTimes returns records with their move times cleared, as the
// times are all that differs between two plays of a game.
func withoutTimes(records []arena.GameRecord) []arena.GameRecord {
	out := slices.Clone(records)
	for i := range out {
		out[i].MoveMS = nil
	}
	return out
}
