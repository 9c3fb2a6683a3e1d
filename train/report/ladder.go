package report

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/internal/chart"
	"github.com/deathstacks/deathstacks/train/table"
)

// The files a ladder writes (see [LadderReport.Save]).
const (
	LadderResultsFile = "ladder.json"        // the LadderReport as JSON
	LadderReportFile  = "ladder.md"          // tables, settings, how to reproduce
	LadderGamesFile   = "ladder-games.jsonl" // one arena.GameRecord a line
	LadderChart       = "ladder.png"         // Elo against training time
	// LadderGamesJournal is the [arena.Journal] of the games finished while a
	// ladder plays; it is removed once the files above are written.
	LadderGamesJournal = "ladder-games.partial.jsonl"
)

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

// LadderReport is the outcome of a ladder (package ladder plays it and
// fills this in): the [Report] of all its games, and the snapshots'
// ratings in training order, run by run. It marshals to the JSON of
// ladder.json.
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
			fmt.Sprintf("network players: the run's search settings as a player's (no noise or temperature, the win search at a player's budget at least), %s (spec keys: `%s`)", r.budget(), r.Search),
			"pairs: every snapshot against every baseline and against the next snapshot rated, the baselines against each other")
	} else {
		fmt.Fprintf(&b, "# Ladder of %s\n\n", r.title())
		lines := []string{fmt.Sprintf("network players: each run's search settings as a player's (no noise or temperature, the win search at a player's budget at least), %s", r.budget())}
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
func (r *LadderReport) Save(dir string, records []arena.GameRecord) error {
	return saveReportFiles(dir, [4]string{LadderResultsFile, LadderReportFile, LadderGamesFile, LadderChart}, r, r.Markdown(), records, r.Plot)
}
