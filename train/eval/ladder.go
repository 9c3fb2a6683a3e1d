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

// LadderOptions set up a [Ladder] over a run's network snapshots.
type LadderOptions struct {
	// Run is what the ladder needs of the training run: package train's
	// LadderRun reads it from a run directory.
	Run LadderRun
	// Every rates the snapshots whose iteration is a multiple of Every,
	// and the latest one; 1 rates them all.
	Every int
	// Simulations is the network players' search budget per move, and
	// Time their time per move (0 for none; with both, whichever ends
	// first, and with Time, Simulations may be 0 for no limit); the other
	// search settings are the run's (Run.Search).
	Simulations int
	Time        time.Duration
	// Games is the number of games each pair plays; Parallel how many run
	// at once; Seed drives openings and players.
	Games, Parallel int
	Seed            uint64
}

// LadderRun is a training run as a ladder sees it.
type LadderRun struct {
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

// Ladder rates the network snapshots of a training run against baseline
// players and against each other. To keep the cost linear in the number
// of snapshots, the pairs that play are: every snapshot against every
// baseline, every snapshot against the next one rated, and the baselines
// against each other. The Elo fit over all these games puts every snapshot
// on one scale, anchored at a baseline.
type Ladder struct {
	opts      LadderOptions
	search    mcts.Config
	snapshots []LadderSnapshot
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

// NewLadder picks the snapshots to rate and checks the options.
func NewLadder(opts LadderOptions) (*Ladder, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("ladder: %w", err)
	}
	if len(opts.Run.Snapshots) == 0 {
		return nil, fmt.Errorf("ladder: run %s has no network snapshots", opts.Run.Dir)
	}
	l := &Ladder{opts: opts, search: opts.Run.Search}
	l.search.Simulations, l.search.Time = opts.Simulations, opts.Time
	all := opts.Run.Snapshots
	for i, s := range all {
		if s.Iteration%opts.Every != 0 && i != len(all)-1 {
			continue
		}
		l.snapshots = append(l.snapshots, s)
	}
	return l, nil
}

// Snapshots returns the snapshots the ladder rates, oldest first.
func (l *Ladder) Snapshots() []LadderSnapshot { return l.snapshots }

// Games returns the number of games the ladder plays with the given
// number of baselines.
func (l *Ladder) Games(baselines int) int {
	s := len(l.snapshots)
	pairs := s*baselines + (s - 1) + baselines*(baselines-1)/2
	return pairs * l.opts.Games
}

// arena returns the settings of the ladder's games: the run's rules and
// evaluation openings, the options' games, parallelism and seed.
func (l *Ladder) arena() ArenaConfig {
	return ArenaConfig{
		Rules:        l.opts.Run.Rules,
		Games:        l.opts.Games,
		Parallel:     l.opts.Parallel,
		OpeningPlies: l.opts.Run.OpeningPlies,
		Seed:         l.opts.Seed,
	}
}

// Spec returns the az player spec that plays like the ladder's player of a
// snapshot, every search setting spelled out, so that the eval command can
// rate it again.
func (l *Ladder) Spec(s LadderSnapshot) string {
	params := append([]players.Param{{Key: "model", Value: s.Path}}, players.SearchParams(l.search)...)
	return players.Spec{Kind: players.KindAZ, Params: params}.String()
}

// snapshotName names a snapshot's player in records and tables.
func snapshotName(s LadderSnapshot) string { return fmt.Sprintf("iter-%06d", s.Iteration) }

// Play plays the ladder's games (see [Ladder]) and rates everyone with
// the anchor's Elo at 0 (see [DefaultAnchor]); baselines need at least
// one player. The games are numbered across the ladder's pairs, in the
// order they play. played are games finished before (from a [Journal]),
// which are not played again: see [ArenaConfig.Played]. onGame, if not
// nil, is called with each game finished now, one call at a time. Each
// snapshot's network is served, batched across the games at once, only
// while its pairs play. It returns the report and the records of every
// game, in game order.
func (l *Ladder) Play(ctx context.Context, baselines []Contender, played []GameRecord, onGame func(GameRecord)) (*LadderReport, []GameRecord, error) {
	if len(baselines) == 0 {
		return nil, nil, errors.New("ladder: no baseline players")
	}
	for _, b := range baselines {
		for _, s := range l.snapshots {
			if b.Name == snapshotName(s) {
				return nil, nil, fmt.Errorf("ladder: a baseline is called %s like a snapshot", b.Name)
			}
		}
	}
	byMatch, err := l.playedByMatch(played, baselines)
	if err != nil {
		return nil, nil, fmt.Errorf("ladder: %w", err)
	}
	arena := l.arena()
	var records []GameRecord
	matches := 0
	match := func(a, b Entrant) error {
		offset := matches * arena.Games
		arena.Played = byMatch[matches]
		matches++
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
		return err
	}
	for i := range baselines {
		for j := i + 1; j < len(baselines); j++ {
			if err := match(baselines[i].Entrant, baselines[j].Entrant); err != nil {
				return nil, records, fmt.Errorf("ladder: %w", err)
			}
		}
	}
	contenders := append([]Contender(nil), baselines...)
	var prev *snapshotPlayer
	defer func() {
		if prev != nil {
			prev.srv.Close()
		}
	}()
	for _, s := range l.snapshots {
		cur, err := l.player(s)
		if err != nil {
			return nil, records, err
		}
		contenders = append(contenders, cur.Contender)
		for _, b := range baselines {
			if err == nil {
				err = match(cur.Entrant, b.Entrant)
			}
		}
		if prev != nil {
			if err == nil {
				err = match(prev.Entrant, cur.Entrant)
			}
			prev.srv.Close()
		}
		prev = cur
		if err != nil {
			return nil, records, fmt.Errorf("ladder: %w", err)
		}
	}
	rep, err := NewReport(records, contenders, DefaultAnchor(baselines), arena)
	if err != nil {
		return nil, records, fmt.Errorf("ladder: %w", err)
	}
	return l.report(rep), records, nil
}

// pairs returns the names of the players of each match of the ladder, in
// the order [Ladder.Play] plays them.
func (l *Ladder) pairs(baselines []Contender) [][2]string {
	var out [][2]string
	for i := range baselines {
		for j := i + 1; j < len(baselines); j++ {
			out = append(out, [2]string{baselines[i].Name, baselines[j].Name})
		}
	}
	for i, s := range l.snapshots {
		for _, b := range baselines {
			out = append(out, [2]string{snapshotName(s), b.Name})
		}
		if i > 0 {
			out = append(out, [2]string{snapshotName(l.snapshots[i-1]), snapshotName(s)})
		}
	}
	return out
}

// playedByMatch splits the ladder's games played before by the match they
// belong to, each numbered within its match as [PlayMatch] numbers it, and
// checks them all against their matches' games before any game is played.
func (l *Ladder) playedByMatch(played []GameRecord, baselines []Contender) ([][]GameRecord, error) {
	games := l.opts.Games
	pairs := l.pairs(baselines)
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
		if _, _, err := placePlayed(jobs, recs); err != nil {
			return nil, fmt.Errorf("games %d to %d, %s against %s: %w", m*games, (m+1)*games-1, p[0], p[1], err)
		}
	}
	return out, nil
}

// snapshotPlayer is a snapshot's contender and the server of its network.
type snapshotPlayer struct {
	Contender
	srv *model.Server
}

// player loads a snapshot's network and starts its server.
func (l *Ladder) player(s LadderSnapshot) (*snapshotPlayer, error) {
	net, err := model.Load(s.Path)
	if err != nil {
		return nil, fmt.Errorf("ladder: %w", err)
	}
	srv, err := model.NewServer(net, l.opts.Run.Server)
	if err != nil {
		return nil, fmt.Errorf("ladder: %s: %w", s.Path, err)
	}
	search := l.search
	e := Entrant{Name: snapshotName(s), New: func(seed uint64) (mcts.Player, error) {
		return mcts.NewPUCTPlayer(srv, search, seed)
	}}
	return &snapshotPlayer{Contender: Contender{Entrant: e, Spec: l.Spec(s)}, srv: srv}, nil
}

// LadderPoint is a snapshot's rating in a [LadderReport].
type LadderPoint struct {
	Iteration int    `json:"iteration"`
	Name      string `json:"name"`
	// ElapsedSec is the training time through the iteration; it is left
	// out when the run's metrics do not have it.
	ElapsedSec float64    `json:"elapsed_sec,omitempty"`
	Elo        float64    `json:"elo"`
	CI95       [2]float64 `json:"ci95"`
}

// LadderReport is the outcome of a [Ladder]: the [Report] of all its
// games, and the snapshots' ratings in training order. It marshals to the
// JSON of ladder.json.
type LadderReport struct {
	Report
	Run string `json:"run"`
	// Simulations and TimeMS are the network players' search budget per
	// move (0: none); Search their whole search settings as a player
	// spec's keys.
	Simulations int     `json:"simulations"`
	TimeMS      float64 `json:"time_ms,omitempty"`
	Search      string  `json:"search"`
	// TimeAxis says what the chart's x axis shows: "training time" when
	// every snapshot's training time is known, else "iteration".
	TimeAxis  string        `json:"time_axis"`
	Snapshots []LadderPoint `json:"snapshots"`
}

// searchKeys returns the network players' search settings as a player
// spec's keys: "simulations=100,c_puct=...".
func (l *Ladder) searchKeys() string {
	params := players.SearchParams(l.search)
	keys := make([]string, len(params))
	for i, p := range params {
		keys[i] = p.Key + "=" + p.Value
	}
	return strings.Join(keys, ",")
}

// report turns the report of the ladder's games into the ladder's.
func (l *Ladder) report(rep *Report) *LadderReport {
	lr := &LadderReport{Report: *rep, Run: l.opts.Run.Dir, Simulations: l.search.Simulations,
		TimeMS: float64(l.search.Time) / float64(time.Millisecond), Search: l.searchKeys(), TimeAxis: "training time"}
	for _, s := range l.snapshots {
		st, _ := rep.standing(snapshotName(s))
		lr.Snapshots = append(lr.Snapshots, LadderPoint{Iteration: s.Iteration, Name: st.Name, ElapsedSec: s.ElapsedSec, Elo: st.Elo, CI95: st.CI95})
		if !s.HasElapsed {
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
// model files (their search settings are the same for all), else nil.
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
	last := r.Snapshots[len(r.Snapshots)-1].ElapsedSec
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

// Plot draws the snapshots' Elo with their 95% intervals against training
// time (or iteration), and each baseline's Elo as a dashed line, into a
// PNG at path, written atomically.
func (r *LadderReport) Plot(path string) error {
	if len(r.Snapshots) == 0 {
		return fmt.Errorf("plot %s: no snapshots", path)
	}
	p := chart.New(fmt.Sprintf("Elo of %s (95%% interval)", filepath.Base(filepath.Clean(r.Run))), fmt.Sprintf("Elo (%s = 0)", r.Anchor))
	p.X.Label.Text, _ = r.timeScale()
	var pts chart.Points
	for _, s := range r.Snapshots {
		pts = append(pts, chart.Point{X: r.x(s), Y: s.Elo, Low: s.CI95[0], High: s.CI95[1]})
	}
	bars, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	bars.Color = plotutil.Color(0)
	p.Add(bars)
	xys, err := plotter.CopyXYs(pts)
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	chart.AddLine(p, "network", xys, 0)
	// Training starts at 0 on either axis; the margin keeps the last
	// point's bar off the frame.
	lo, hi := 0.0, xys[len(xys)-1].X*1.03
	p.X.Min, p.X.Max = lo, hi
	base := r.baselines()
	for i, b := range base {
		line, err := plotter.NewLine(plotter.XYs{{X: lo, Y: b.Elo}, {X: hi, Y: b.Elo}})
		if err != nil {
			return fmt.Errorf("plot %s: %w", path, err)
		}
		line.Color, line.Width, line.Dashes = plotutil.Color(i+1), vg.Points(1.5), []vg.Length{vg.Points(6), vg.Points(4)}
		p.Add(line)
		p.Legend.Add(fmt.Sprintf("%s (%s)", b.Name, formatElo(b.Elo)), line)
	}
	chart.MakeRoom(p, len(base)+1)
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
	fmt.Fprintf(&b, "# Ladder of %s\n\n", r.Run)
	r.markdownSettings(&b,
		fmt.Sprintf("network players: the run's search settings without noise or temperature, %s (spec keys: `%s`)", r.budget(), r.Search),
		"pairs: every snapshot against every baseline and against the next snapshot rated, the baselines against each other")
	fmt.Fprintf(&b, "![Elo against %s](%s)\n\n", r.TimeAxis, LadderChart)
	fmt.Fprintf(&b, "## Snapshots\n\n%s\n", r.snapshotTable().Markdown())
	r.markdownTables(&b, "##", r.specColumn())
	r.markdownReproduce(&b)
	return b.String()
}

// snapshotTable lists the snapshots' ratings in training order.
func (r *LadderReport) snapshotTable() table.Table {
	t := table.Table{Head: []string{"iteration", "training time", "player", "Elo", "±95%"}, Right: []bool{true, true, false, true, true}}
	for _, s := range r.Snapshots {
		elapsed := "?"
		if s.ElapsedSec > 0 {
			elapsed = formatSeconds(s.ElapsedSec)
		}
		t.Rows = append(t.Rows, []string{fmt.Sprint(s.Iteration), elapsed, s.Name, formatElo(s.Elo), formatHalf(s.CI95)})
	}
	return t
}

// WriteText writes the snapshots' ratings and the table of all players as
// aligned text, for a terminal.
func (r *LadderReport) WriteText(w io.Writer) error {
	text := fmt.Sprintf("Snapshots: Elo relative to %s = 0, ±95%% is the half-width of the 95%% interval.\n%s\nPlayers: %s\n%s",
		r.Anchor, r.snapshotTable().Text(), fmt.Sprintf(eloCaption, r.Anchor), r.playerTable(r.specColumn()).Text())
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
