package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/internal/chart"
	"github.com/deathstacks/deathstacks/train/internal/table"
)

// The files a ladder writes (see [LadderReport.Save]).
const (
	LadderResultsFile = "ladder.json"        // the LadderReport as JSON
	LadderReportFile  = "ladder.md"          // tables, settings, how to reproduce
	LadderGamesFile   = "ladder-games.jsonl" // one GameRecord a line
	LadderChart       = "ladder.png"         // Elo against training time
	// LadderGamesJournal is the [Journal] of the games finished while a
	// ladder plays; it is removed once the files above are written.
	LadderGamesJournal = "ladder-games.partial.jsonl"
)

// LadderOptions set up a [Ladder] over the network snapshots of one or
// more training runs.
type LadderOptions struct {
	// Runs are what the ladder needs of each training run: package
	// train's LadderRun reads it from a run directory. Several runs need
	// a Name each, all different, and the same rules and evaluation
	// openings.
	Runs []LadderRun
	// Every rates the snapshots whose iteration is a multiple of Every,
	// and the latest one, of each run; 1 rates them all.
	Every int
	// Simulations is the network players' search budget per move, and
	// Time their time per move (0 for none; with both, whichever ends
	// first, and with Time, Simulations may be 0 for no limit); the other
	// search settings are each run's (LadderRun.Search).
	Simulations int
	Time        time.Duration
	// Games is the number of games each pair plays; Parallel how many run
	// at once; Seed drives openings and players.
	Games, Parallel int
	Seed            uint64
}

// LadderRun is a training run as a ladder sees it.
type LadderRun struct {
	// Name names the run in a ladder of several: its snapshots' players
	// are NAME/iter-000010. A ladder of one run does not use it.
	Name string
	// Dir is the run directory, for the report.
	Dir string
	// Rules and OpeningPlies are the run's rules and the random plies of
	// its evaluation openings.
	Rules        env.Rules
	OpeningPlies int
	// Search is the run's search for strong play: no noise, no
	// temperature.
	Search mcts.Config
	// Server is the run's network server.
	Server model.ServerConfig
	// Snapshots are the run's network snapshots, oldest first.
	Snapshots []LadderSnapshot
}

// LadderSnapshot is a network snapshot a ladder rates.
type LadderSnapshot struct {
	Iteration int
	Path      string
	// ElapsedSec is the run's training time through the iteration, from
	// metrics.jsonl; HasElapsed is false when the log does not have it.
	ElapsedSec float64
	HasElapsed bool
}

// Ladder rates the network snapshots of training runs against baseline
// players and against each other. To keep the cost linear in the number
// of snapshots, the pairs that play are: every snapshot against every
// baseline, every snapshot against the next one rated of its run, the
// baselines against each other, and the latest snapshot of each run
// against the latest of every other run, which compares the runs' final
// networks directly. The Elo fit over all these games puts every snapshot
// of every run on one scale, anchored at a baseline.
type Ladder struct {
	opts LadderOptions
	// runs are the runs with the snapshots rated and the search of their
	// players; rungs are all those snapshots, run by run, oldest first.
	runs  []ratedRun
	rungs []rung
}

// ratedRun is a run of a ladder: its Snapshots are those the ladder
// rates, and search is how their players search.
type ratedRun struct {
	LadderRun
	search mcts.Config
}

// rung is a snapshot a ladder rates: the index of its run in
// [Ladder.runs], the snapshot and its player's name.
type rung struct {
	run  int
	snap LadderSnapshot
	name string
}

// Validate reports every option out of range, each as a
// [*configs.FieldError] keyed by its field's snake-case name (every,
// simulations, time, games, parallel), joined into one error.
func (o LadderOptions) Validate() error {
	var ch configs.Checker
	ch.AtLeast("every", o.Every, 1)
	ch.AtLeast("simulations", o.Simulations, 0)
	ch.Check(o.Time >= 0, "time", "is %v: want 0 (none) or more", o.Time)
	ch.Check(o.Simulations > 0 || o.Time != 0, "simulations", "is 0 without a time: want 1 or more")
	ch.AtLeast("games", o.Games, 1)
	ch.AtLeast("parallel", o.Parallel, 1)
	return ch.Err()
}

// NewLadder picks the snapshots to rate and checks the options and the
// runs: each has snapshots, and with several, each has a name of its own
// and they share rules and evaluation openings, without which their games
// would not rate on one scale.
func NewLadder(opts LadderOptions) (*Ladder, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("ladder: %w", err)
	}
	if len(opts.Runs) == 0 {
		return nil, errors.New("ladder: no runs")
	}
	if err := checkRuns(opts.Runs); err != nil {
		return nil, fmt.Errorf("ladder: %w", err)
	}
	l := &Ladder{opts: opts}
	for i, run := range opts.Runs {
		r := ratedRun{LadderRun: run, search: run.Search}
		r.search.Simulations, r.search.Time = opts.Simulations, opts.Time
		r.Snapshots = nil
		all := run.Snapshots
		for j, s := range all {
			if s.Iteration%opts.Every != 0 && j != len(all)-1 {
				continue
			}
			r.Snapshots = append(r.Snapshots, s)
			name := fmt.Sprintf("iter-%06d", s.Iteration)
			if len(opts.Runs) > 1 {
				name = run.Name + "/" + name
			}
			l.rungs = append(l.rungs, rung{run: i, snap: s, name: name})
		}
		l.runs = append(l.runs, r)
	}
	return l, nil
}

// checkRuns checks that every run has snapshots and that several runs
// have names, all different, and the same rules and openings as the first.
func checkRuns(runs []LadderRun) error {
	first := runs[0]
	for i, r := range runs {
		if len(r.Snapshots) == 0 {
			return fmt.Errorf("run %s has no network snapshots", r.Dir)
		}
		if len(runs) == 1 {
			break
		}
		if r.Name == "" {
			return fmt.Errorf("run %s has no name: a ladder of several runs names each", r.Dir)
		}
		for _, o := range runs[:i] {
			if o.Name == r.Name {
				return fmt.Errorf("runs %s and %s are both called %s", o.Dir, r.Dir, r.Name)
			}
		}
		for _, d := range []struct {
			key       string
			was, this any
		}{
			{"env.rules.too_tall", first.Rules.TooTall, r.Rules.TooTall},
			{"env.rules.max_plies", first.Rules.MaxPlies, r.Rules.MaxPlies},
			{"env.rules.repetitions", first.Rules.RepetitionLimit, r.Rules.RepetitionLimit},
			{"eval.opening_plies", first.OpeningPlies, r.OpeningPlies},
		} {
			if d.was != d.this {
				return fmt.Errorf("runs %s (%s) and %s (%s) differ in %s: %v and %v; a ladder's games share rules and openings",
					first.Name, first.Dir, r.Name, r.Dir, d.key, d.was, d.this)
			}
		}
	}
	return nil
}

// Runs returns the ladder's runs, each with the snapshots the ladder
// rates, oldest first.
func (l *Ladder) Runs() []LadderRun {
	out := make([]LadderRun, len(l.runs))
	for i, r := range l.runs {
		out[i] = r.LadderRun
		out[i].Snapshots = slices.Clone(r.Snapshots)
	}
	return out
}

// Games returns the number of games the ladder plays with the given
// number of baselines.
func (l *Ladder) Games(baselines int) int {
	return len(l.schedule(baselines)) * l.opts.Games
}

// schedule returns the ladder's matches in the order [Ladder.Play] plays
// them, each as the indices of its two players: 0 to baselines-1 are the
// baselines, and baselines+k is the k-th rung. The order of the pairs of
// one run is that of the ladders before several runs, whose journals
// number their games so.
func (l *Ladder) schedule(baselines int) [][2]int {
	var out [][2]int
	for i := range baselines {
		for j := i + 1; j < baselines; j++ {
			out = append(out, [2]int{i, j})
		}
	}
	var latest []int
	for k, g := range l.rungs {
		for i := range baselines {
			out = append(out, [2]int{baselines + k, i})
		}
		if k > 0 && l.rungs[k-1].run == g.run {
			out = append(out, [2]int{baselines + k - 1, baselines + k})
		}
		if k == len(l.rungs)-1 || l.rungs[k+1].run != g.run {
			latest = append(latest, baselines+k)
		}
	}
	for i := range latest {
		for j := i + 1; j < len(latest); j++ {
			out = append(out, [2]int{latest[i], latest[j]})
		}
	}
	return out
}

// arena returns the settings of the ladder's games: the runs' rules and
// evaluation openings, the options' games, parallelism and seed.
func (l *Ladder) arena() ArenaConfig {
	return ArenaConfig{
		Rules:        l.runs[0].Rules,
		Games:        l.opts.Games,
		Parallel:     l.opts.Parallel,
		OpeningPlies: l.runs[0].OpeningPlies,
		Seed:         l.opts.Seed,
	}
}

// spec returns the az player spec that plays like the ladder's player of
// a rung, every search setting of its run spelled out, so that the eval
// command can rate it again.
func (l *Ladder) spec(g rung) string {
	params := append([]players.Param{{Key: "model", Value: g.snap.Path}}, players.SearchParams(l.runs[g.run].search)...)
	return players.Spec{Kind: players.KindAZ, Params: params}.String()
}

// Play plays the ladder's games (see [Ladder]) and rates everyone with
// the anchor's Elo at 0 (see [DefaultAnchor]); baselines need at least
// one player. The games are numbered across the ladder's pairs, in the
// order they play. played are games finished before (from a [Journal]),
// which are not played again: see [ArenaConfig.Played]. onGame, if not
// nil, is called with each game finished now, one call at a time. Each
// snapshot's network is served, batched across the games at once, only
// from its first pair to its last. It returns the report and the records
// of every game, in game order.
func (l *Ladder) Play(ctx context.Context, baselines []Contender, played []GameRecord, onGame func(GameRecord)) (*LadderReport, []GameRecord, error) {
	if len(baselines) == 0 {
		return nil, nil, errors.New("ladder: no baseline players")
	}
	for _, b := range baselines {
		for _, g := range l.rungs {
			if b.Name == g.name {
				return nil, nil, fmt.Errorf("ladder: a baseline is called %s like a snapshot", b.Name)
			}
		}
	}
	nb := len(baselines)
	schedule := l.schedule(nb)
	byMatch, err := l.playedByMatch(played, baselines, schedule)
	if err != nil {
		return nil, nil, fmt.Errorf("ladder: %w", err)
	}
	// Each snapshot's server starts at its first match and stops after its
	// last, so that few networks are in memory at once.
	last := make([]int, len(l.rungs))
	for m, pair := range schedule {
		for _, i := range pair {
			if i >= nb {
				last[i-nb] = m
			}
		}
	}
	open := make([]*snapshotPlayer, len(l.rungs))
	defer func() {
		for _, p := range open {
			if p != nil {
				p.srv.Close()
			}
		}
	}()
	entrant := func(i int) (Entrant, error) {
		if i < nb {
			return baselines[i].Entrant, nil
		}
		if open[i-nb] == nil {
			p, err := l.player(l.rungs[i-nb])
			if err != nil {
				return Entrant{}, err
			}
			open[i-nb] = p
		}
		return open[i-nb].Entrant, nil
	}
	arena := l.arena()
	var records []GameRecord
	for m, pair := range schedule {
		a, err := entrant(pair[0])
		if err != nil {
			return nil, records, err
		}
		b, err := entrant(pair[1])
		if err != nil {
			return nil, records, err
		}
		offset := m * arena.Games
		arena.Played = byMatch[m]
		arena.OnGame = func(r GameRecord) {
			if onGame != nil {
				r.Game += offset
				onGame(r)
			}
		}
		recs, err := PlayMatch(ctx, a, b, arena)
		for _, r := range recs {
			r.Game += offset
			records = append(records, r)
		}
		if err != nil {
			return nil, records, fmt.Errorf("ladder: %w", err)
		}
		for _, i := range pair {
			if i >= nb && last[i-nb] == m {
				open[i-nb].srv.Close()
				open[i-nb] = nil
			}
		}
	}
	contenders := slices.Clone(baselines)
	for _, g := range l.rungs {
		contenders = append(contenders, Contender{Entrant: Entrant{Name: g.name}, Spec: l.spec(g)})
	}
	rep, err := NewReport(records, contenders, DefaultAnchor(baselines), arena)
	if err != nil {
		return nil, records, fmt.Errorf("ladder: %w", err)
	}
	return l.report(rep), records, nil
}

// pairs returns the names of the players of each match of a schedule.
func (l *Ladder) pairs(baselines []Contender, schedule [][2]int) [][2]string {
	name := func(i int) string {
		if i < len(baselines) {
			return baselines[i].Name
		}
		return l.rungs[i-len(baselines)].name
	}
	out := make([][2]string, len(schedule))
	for m, p := range schedule {
		out[m] = [2]string{name(p[0]), name(p[1])}
	}
	return out
}

// playedByMatch splits the ladder's games played before by the match of
// the schedule they belong to, each numbered within its match as
// [PlayMatch] numbers it, and checks them all against their matches'
// games before any game is played.
func (l *Ladder) playedByMatch(played []GameRecord, baselines []Contender, schedule [][2]int) ([][]GameRecord, error) {
	games := l.opts.Games
	pairs := l.pairs(baselines, schedule)
	out := make([][]GameRecord, len(pairs))
	for _, r := range played {
		if r.Game < 0 || r.Game >= len(pairs)*games {
			return nil, fmt.Errorf("%w: game %d: the ladder has games 0 to %d", ErrPlayedGame, r.Game, len(pairs)*games-1)
		}
		m := r.Game / games
		r.Game -= m * games
		out[m] = append(out[m], r)
	}
	for m, recs := range out {
		if len(recs) == 0 {
			continue
		}
		p := pairs[m]
		jobs := roundRobinJobs([]Entrant{{Name: p[0]}, {Name: p[1]}}, l.arena())
		if _, _, err := placePlayed(jobs, recs, l.arena().Rules); err != nil {
			return nil, fmt.Errorf("games %d to %d, %s against %s: %w", m*games, (m+1)*games-1, p[0], p[1], err)
		}
	}
	return out, nil
}

// snapshotPlayer is a snapshot's entrant and the server of its network.
type snapshotPlayer struct {
	Entrant
	srv *model.Server
}

// player loads a rung's network and starts its server, with its run's
// server settings.
func (l *Ladder) player(g rung) (*snapshotPlayer, error) {
	net, err := model.Load(g.snap.Path)
	if err != nil {
		return nil, fmt.Errorf("ladder: %w", err)
	}
	run := l.runs[g.run]
	srv, err := model.NewServer(net, run.Server)
	if err != nil {
		return nil, fmt.Errorf("ladder: %s: %w", g.snap.Path, err)
	}
	search := run.search
	e := Entrant{Name: g.name, New: func(seed uint64) (mcts.Player, error) {
		return mcts.NewPUCTPlayer(srv, search, seed)
	}}
	return &snapshotPlayer{Entrant: e, srv: srv}, nil
}

// LadderPoint is a snapshot's rating in a [LadderReport].
type LadderPoint struct {
	Iteration int    `json:"iteration"`
	Name      string `json:"name"`
	// Run is the name of the snapshot's run in a ladder of several runs;
	// it is left out with one.
	Run string `json:"run,omitempty"`
	// ElapsedSec is the training time through the iteration; it is left
	// out when the run's metrics do not have it.
	ElapsedSec float64    `json:"elapsed_sec,omitempty"`
	Elo        float64    `json:"elo"`
	CI95       [2]float64 `json:"ci95"`
}

// LadderReportRun is a run of a ladder of several runs, in a
// [LadderReport]: its name, its directory, and its network players'
// search settings as a player spec's keys.
type LadderReportRun struct {
	Name   string `json:"name"`
	Dir    string `json:"dir"`
	Search string `json:"search"`
}

// LadderReport is the outcome of a [Ladder]: the [Report] of all its
// games, and the snapshots' ratings in training order, run by run. It
// marshals to the JSON of ladder.json.
type LadderReport struct {
	Report
	// Run is the run's directory, the first run's in a ladder of several.
	Run string `json:"run"`
	// Runs are the runs of a ladder of several, in order; nil with one.
	Runs []LadderReportRun `json:"runs,omitempty"`
	// Simulations and TimeMS are the network players' search budget per
	// move (0: none); Search their whole search settings as a player
	// spec's keys (the first run's in a ladder of several).
	Simulations int     `json:"simulations"`
	TimeMS      float64 `json:"time_ms,omitempty"`
	Search      string  `json:"search"`
	// TimeAxis says what the chart's x axis shows: "training time" when
	// every snapshot's training time is known, else "iteration".
	TimeAxis  string        `json:"time_axis"`
	Snapshots []LadderPoint `json:"snapshots"`
}

// searchKeys returns search settings as a player spec's keys:
// "simulations=100,c_puct=...".
func searchKeys(search mcts.Config) string {
	params := players.SearchParams(search)
	keys := make([]string, len(params))
	for i, p := range params {
		keys[i] = p.Key + "=" + p.Value
	}
	return strings.Join(keys, ",")
}

// timeMS returns the options' time per move in milliseconds.
func (o LadderOptions) timeMS() float64 { return float64(o.Time) / float64(time.Millisecond) }

// report turns the report of the ladder's games into the ladder's.
func (l *Ladder) report(rep *Report) *LadderReport {
	lr := &LadderReport{Report: *rep, Run: l.runs[0].Dir, Simulations: l.opts.Simulations,
		TimeMS: l.opts.timeMS(), Search: searchKeys(l.runs[0].search), TimeAxis: "training time"}
	several := len(l.runs) > 1
	if several {
		for _, r := range l.runs {
			lr.Runs = append(lr.Runs, LadderReportRun{Name: r.Name, Dir: r.Dir, Search: searchKeys(r.search)})
		}
	}
	for _, g := range l.rungs {
		st, _ := rep.standing(g.name)
		p := LadderPoint{Iteration: g.snap.Iteration, Name: st.Name, ElapsedSec: g.snap.ElapsedSec, Elo: st.Elo, CI95: st.CI95}
		if several {
			p.Run = l.runs[g.run].Name
		}
		lr.Snapshots = append(lr.Snapshots, p)
		if !g.snap.HasElapsed {
			lr.TimeAxis = "iteration"
		}
	}
	return lr
}

// isSnapshot reports whether a player of the report is a snapshot.
func (r *LadderReport) isSnapshot(name string) bool {
	return slices.ContainsFunc(r.Snapshots, func(p LadderPoint) bool { return p.Name == name })
}

// baselines returns the players of the report that are not snapshots.
func (r *LadderReport) baselines() []Standing {
	var out []Standing
	for _, s := range r.Players {
		if !r.isSnapshot(s.Name) {
			out = append(out, s)
		}
	}
	return out
}

// specColumn returns the spec column of the players table: the baselines'
// specs, if some baseline's name differs from its spec, and the snapshots'
// model files (their search settings are their run's), else nil.
func (r *LadderReport) specColumn() func(Standing) string {
	if !slices.ContainsFunc(r.baselines(), func(s Standing) bool { return s.Name != s.Spec }) {
		return nil
	}
	return func(s Standing) string {
		if r.isSnapshot(s.Name) {
			if model, _, ok := strings.Cut(s.Spec, ",simulations="); ok {
				return model + ",…"
			}
		}
		return s.Spec
	}
}

// timeScale returns the unit of the chart's x axis and the seconds in it.
func (r *LadderReport) timeScale() (string, float64) {
	if r.TimeAxis != "training time" {
		return "iteration", 0
	}
	last := 0.0
	for _, s := range r.Snapshots {
		last = max(last, s.ElapsedSec)
	}
	if last < 2*3600 {
		return "training time (minutes)", 60
	}
	return "training time (hours)", 3600
}

// x returns a snapshot's place on the chart's x axis.
func (r *LadderReport) x(p LadderPoint) float64 {
	if _, sec := r.timeScale(); sec > 0 {
		return p.ElapsedSec / sec
	}
	return float64(p.Iteration)
}

// curves returns the snapshots of each run in the report's order, with
// the name of each run's curve on the chart: "network" when there is one
// run.
func (r *LadderReport) curves() (names []string, points [][]LadderPoint) {
	if len(r.Runs) == 0 {
		return []string{"network"}, [][]LadderPoint{r.Snapshots}
	}
	for _, run := range r.Runs {
		names = append(names, run.Name)
		points = append(points, slices.DeleteFunc(slices.Clone(r.Snapshots), func(p LadderPoint) bool { return p.Run != run.Name }))
	}
	return names, points
}

// title names what the ladder rates: the run directory's base name, or
// the runs' names.
func (r *LadderReport) title() string {
	if len(r.Runs) == 0 {
		return filepath.Base(filepath.Clean(r.Run))
	}
	names := make([]string, len(r.Runs))
	for i, run := range r.Runs {
		names[i] = run.Name
	}
	return strings.Join(names, ", ")
}

// Plot draws the snapshots' Elo with their 95% intervals against training
// time (or iteration), one curve in its own colour per run, and each
// baseline's Elo as a dashed line, into a PNG at path, written
// atomically.
func (r *LadderReport) Plot(path string) error {
	if len(r.Snapshots) == 0 {
		return fmt.Errorf("plot %s: no snapshots", path)
	}
	p := chart.New(fmt.Sprintf("Elo of %s (95%% interval)", r.title()), fmt.Sprintf("Elo (%s = 0)", r.Anchor))
	p.X.Label.Text, _ = r.timeScale()
	names, curves := r.curves()
	hi := 0.0
	for i, curve := range curves {
		if len(curve) == 0 {
			return fmt.Errorf("plot %s: run %s has no snapshots", path, names[i])
		}
		var pts chart.Points
		for _, s := range curve {
			pts = append(pts, chart.Point{X: r.x(s), Y: s.Elo, Low: s.CI95[0], High: s.CI95[1]})
		}
		xys, err := chart.AddIntervals(p, names[i], pts, i)
		if err != nil {
			return fmt.Errorf("plot %s: %w", path, err)
		}
		hi = max(hi, xys[len(xys)-1].X)
	}
	// Training starts at 0 on either axis; the margin keeps the last
	// point's bar off the frame.
	lo, hi := 0.0, hi*1.03
	p.X.Min, p.X.Max = lo, hi
	base := r.baselines()
	for i, b := range base {
		line, err := plotter.NewLine(plotter.XYs{{X: lo, Y: b.Elo}, {X: hi, Y: b.Elo}})
		if err != nil {
			return fmt.Errorf("plot %s: %w", path, err)
		}
		line.Color, line.Width, line.Dashes = plotutil.Color(len(curves)+i), vg.Points(1.5), []vg.Length{vg.Points(6), vg.Points(4)}
		p.Add(line)
		p.Legend.Add(fmt.Sprintf("%s (%s)", b.Name, formatElo(b.Elo)), line)
	}
	chart.MakeRoom(p, len(base)+len(curves))
	return chart.Save(path, [][]*plot.Plot{{p}}, 1100, 600)
}

// budget says how long the network players search each move.
func (r *LadderReport) budget() string {
	sims := fmt.Sprintf("%d simulations", r.Simulations)
	switch {
	case r.TimeMS == 0:
		return sims
	case r.Simulations == 0:
		return fmt.Sprintf("%gms a move", r.TimeMS)
	}
	return fmt.Sprintf("%s or %gms a move, whichever ends first", sims, r.TimeMS)
}

// Markdown returns the ladder's report: settings, the chart (the file
// [LadderChart] beside it), the snapshots' ratings, the tables of all
// players and pairs, and how to reproduce it.
func (r *LadderReport) Markdown() string {
	var b strings.Builder
	if len(r.Runs) == 0 {
		fmt.Fprintf(&b, "# Ladder of %s\n\n", r.Run)
		r.markdownSettings(&b,
			fmt.Sprintf("network players: the run's search settings without noise or temperature, %s (spec keys: `%s`)", r.budget(), r.Search),
			"pairs: every snapshot against every baseline and against the next snapshot rated, the baselines against each other")
	} else {
		fmt.Fprintf(&b, "# Ladder of %s\n\n", r.title())
		lines := []string{fmt.Sprintf("network players: each run's search settings without noise or temperature, %s", r.budget())}
		for _, run := range r.Runs {
			lines = append(lines, fmt.Sprintf("run %s: %s (spec keys: `%s`)", run.Name, run.Dir, run.Search))
		}
		lines = append(lines, "pairs: every snapshot against every baseline and against the next snapshot rated of its run, the baselines against each other, and the latest snapshot of each run against the latest of every other run")
		r.markdownSettings(&b, lines...)
	}
	fmt.Fprintf(&b, "![Elo against %s](%s)\n\n", r.TimeAxis, LadderChart)
	fmt.Fprintf(&b, "## Snapshots\n\n%s\n", r.snapshotTable().Markdown())
	r.markdownTables(&b, "##", r.specColumn())
	r.markdownReproduce(&b)
	return b.String()
}

// snapshotTable lists the snapshots' ratings in training order, with a
// column of their runs when there are several.
func (r *LadderReport) snapshotTable() table.Table {
	t := table.Table{Head: []string{"iteration", "training time", "player", "Elo", "±95%"}, Right: []bool{true, true, false, true, true}}
	several := len(r.Runs) > 0
	if several {
		t.Head, t.Right = append([]string{"run"}, t.Head...), append([]bool{false}, t.Right...)
	}
	for _, s := range r.Snapshots {
		elapsed := "?"
		if s.ElapsedSec > 0 {
			elapsed = formatSeconds(s.ElapsedSec)
		}
		row := []string{fmt.Sprint(s.Iteration), elapsed, s.Name, formatElo(s.Elo), formatHalf(s.CI95)}
		if several {
			row = append([]string{s.Run}, row...)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// WriteText writes the snapshots' ratings, the table of all players and
// the draws of each pair as aligned text, for a terminal.
func (r *LadderReport) WriteText(w io.Writer) error {
	text := fmt.Sprintf("Snapshots: Elo relative to %s = 0, ±95%% is the half-width of the 95%% interval.\n%s\nPlayers: %s\n%s\nDraws: %s\n%s",
		r.Anchor, r.snapshotTable().Text(), fmt.Sprintf(eloCaption, r.Anchor), r.playerTable(r.specColumn()).Text(),
		conversionCaption, r.conversionTable().Text())
	_, err := io.WriteString(w, text)
	return err
}

// formatSeconds writes a duration such as 1h02m or 3m20s.
func formatSeconds(sec float64) string {
	s := int(sec + 0.5)
	if s >= 3600 {
		return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
	}
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}

// Save writes the ladder's files into dir, each atomically:
// [LadderResultsFile], [LadderReportFile], [LadderGamesFile] with
// records, and [LadderChart].
func (r *LadderReport) Save(dir string, records []GameRecord) error {
	return saveReportFiles(dir, [4]string{LadderResultsFile, LadderReportFile, LadderGamesFile, LadderChart}, r, r.Markdown(), records, r.Plot)
}
