package train

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/deathstacks/deathstacks/model"
)

// The plots [PlotMetrics] draws into a run directory.
const (
	LossPlot     = "loss.png"     // losses and policy entropy
	SelfPlayPlot = "selfplay.png" // game length, outcomes, speeds, time per phase
	EvalPlot     = "eval.png"     // score and Elo against each opponent
)

// PlotRun redraws the plots of the run in dir from its metrics.jsonl.
func PlotRun(dir string) error {
	ms, err := ReadMetrics(filepath.Join(dir, MetricsFile))
	if err != nil {
		return err
	}
	return PlotMetrics(dir, ms)
}

// PlotMetrics draws the curves of ms into PNG files in dir, each written
// atomically: [LossPlot], [SelfPlayPlot] and, once some iteration has
// evaluation results, [EvalPlot].
func PlotMetrics(dir string, ms []Metrics) error {
	if len(ms) == 0 {
		return errors.New("plot: no metrics to plot")
	}
	if err := savePanels(filepath.Join(dir, LossPlot), lossPanels(ms), 1500, 850); err != nil {
		return err
	}
	if err := savePanels(filepath.Join(dir, SelfPlayPlot), selfPlayPanels(ms), 1500, 850); err != nil {
		return err
	}
	eval, err := evalPanels(ms)
	if err != nil || eval == nil {
		return err
	}
	return savePanels(filepath.Join(dir, EvalPlot), eval, 1500, 500)
}

// lossPanels are the panels of [LossPlot]. Each loss has its own: on one
// axis the value loss and the L2 penalty, a tenth of the policy loss, would
// look flat.
func lossPanels(ms []Metrics) [][]*plot.Plot {
	return [][]*plot.Plot{{
		panel("Total and policy loss", "loss", false, ms,
			curve{"total", func(m Metrics) float64 { return m.TotalLoss }},
			curve{"policy", func(m Metrics) float64 { return m.PolicyLoss }}),
		panel("Value loss", "loss", false, ms,
			curve{"", func(m Metrics) float64 { return m.ValueLoss }}),
		panel("L2 penalty", "loss", false, ms,
			curve{"", func(m Metrics) float64 { return m.L2Loss }}),
	}, {
		panel("Policy entropy", "nats", false, ms,
			curve{"", func(m Metrics) float64 { return m.PolicyEntropy }}),
		panel("Learning rate", "rate", true, ms,
			curve{"", func(m Metrics) float64 { return m.LR }}),
		panel("Replay buffer", "positions", true, ms,
			curve{"", func(m Metrics) float64 { return float64(m.BufferSize) }}),
	}}
}

// selfPlayPanels are the panels of [SelfPlayPlot].
func selfPlayPanels(ms []Metrics) [][]*plot.Plot {
	outcomes := panel("Self-play outcomes", "share of games", true, ms,
		curve{"red wins", func(m Metrics) float64 { return m.RedWinShare }},
		curve{"blue wins", func(m Metrics) float64 { return m.BlueWinShare }},
		curve{"draws", func(m Metrics) float64 { return m.DrawShare }},
		curve{"move limit", func(m Metrics) float64 { return m.MoveLimitShare }},
		curve{"resigned", func(m Metrics) float64 { return m.ResignedShare }})
	fixUnitAxis(outcomes)
	return [][]*plot.Plot{{
		panel("Self-play game length", "plies", true, ms,
			curve{"", func(m Metrics) float64 { return m.MeanGameLength }}),
		outcomes,
		panel("Time per iteration", "seconds", true, ms,
			curve{"self-play", func(m Metrics) float64 { return m.SelfPlaySec }},
			curve{"training", func(m Metrics) float64 { return m.TrainSec }},
			curve{"evaluation", func(m Metrics) float64 { return m.EvalSec }}),
	}, {
		panel("Self-play speed", "positions/s", true, ms,
			curve{"", func(m Metrics) float64 { return m.PositionsPerSec }}),
		panel("Network speed", "evaluations/s", true, ms,
			curve{"", func(m Metrics) float64 { return m.EvalsPerSec }}),
		panel("Training speed", "samples/s", true, ms,
			curve{"", func(m Metrics) float64 { return m.SamplesPerSec }}),
	}}
}

// evalPanels are the panels of [EvalPlot], or nil before any evaluation.
func evalPanels(ms []Metrics) ([][]*plot.Plot, error) {
	opponents := evalOpponents(ms)
	if len(opponents) == 0 {
		return nil, nil
	}
	var scores []curve
	for _, o := range opponents {
		scores = append(scores, curve{fmt.Sprintf("%s (%s)", o, gamesOf(ms, o)), func(m Metrics) float64 {
			if r, ok := m.Eval[o]; ok {
				return r.Score
			}
			return math.NaN()
		}})
	}
	// A score of 1 is every game won: it cannot rise further, so the Elo
	// panel beside it, whose prior keeps it finite, tells on.
	scorePanel := panel("Score against each opponent (1: every game won)", "points per game", true, ms, scores...)
	fixUnitAxis(scorePanel)
	scorePanel.Legend.Top = false // scores climb towards the top right
	even := plotter.NewFunction(func(float64) float64 { return 0.5 })
	even.Color, even.Dashes = color.Gray{Y: 90}, []vg.Length{vg.Points(6), vg.Points(4)}
	scorePanel.Add(even)
	scorePanel.Legend.Add("0.5: even", even)
	eloPanel := panel(fmt.Sprintf("Elo against each opponent (95%% interval, prior of %g draw)", PriorDraws), "Elo difference", false, ms)
	for i, o := range opponents {
		if err := addEloBars(eloPanel, ms, o, i); err != nil {
			return nil, err
		}
	}
	makeRoom(eloPanel, len(opponents))
	return [][]*plot.Plot{{scorePanel, eloPanel}}, nil
}

// gamesOf says how many games an evaluation against opponent plays: "20
// games", or a range when that changed during the run.
func gamesOf(ms []Metrics, opponent string) string {
	lo, hi := math.MaxInt, 0
	for _, m := range ms {
		if r, ok := m.Eval[opponent]; ok {
			lo, hi = min(lo, r.Games), max(hi, r.Games)
		}
	}
	if lo == hi {
		return fmt.Sprintf("%d games", lo)
	}
	return fmt.Sprintf("%d to %d games", lo, hi)
}

// fixUnitAxis gives a panel of shares or scores its whole range, 0 to 1.
func fixUnitAxis(p *plot.Plot) {
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 0.25, Label: "0.25"},
		{Value: 0.5, Label: "0.5"}, {Value: 0.75, Label: "0.75"}, {Value: 1, Label: "1"}})
}

// plainTicks are plot.DefaultTicks labelled without trailing zeros:
// "50000", not "50000.00".
type plainTicks struct{}

// Ticks implements plot.Ticker.
func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, t := range ticks {
		if strings.Contains(t.Label, ".") && !strings.ContainsAny(t.Label, "eE") {
			ticks[i].Label = strings.TrimSuffix(strings.TrimRight(t.Label, "0"), ".")
		}
	}
	return ticks
}

// iterationTicks marks whole iterations only, with a step of 1, 2, 5, 10,
// 20... chosen for at most about ten labels.
type iterationTicks struct{}

// Ticks implements plot.Ticker.
func (iterationTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 1
	for k := 0; (hi-lo)/float64(step) > 10; k++ {
		if k%3 == 1 {
			step = step * 5 / 2 // 2 to 5, 20 to 50...
		} else {
			step *= 2
		}
	}
	var ticks []plot.Tick
	for v := int(math.Ceil(lo/float64(step))) * step; float64(v) <= hi; v += step {
		ticks = append(ticks, plot.Tick{Value: float64(v), Label: strconv.Itoa(v)})
	}
	return ticks
}

// curve is one line of a panel: a value of each iteration's metrics. NaN
// leaves the iteration out; an empty name leaves the curve out of the
// legend, for a panel whose title names its only curve.
type curve struct {
	name  string
	value func(Metrics) float64
}

// panel makes a plot of curves against the iteration; fromZero starts
// the y axis at 0, for quantities that cannot be negative.
func panel(title, yLabel string, fromZero bool, ms []Metrics, curves ...curve) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "iteration"
	p.X.Tick.Marker = iterationTicks{}
	p.Y.Tick.Marker = plainTicks{}
	p.Y.Label.Text = yLabel
	p.Title.TextStyle.Font.Size = vg.Points(17)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(15)
		a.Tick.Label.Font.Size = vg.Points(13)
	}
	p.Legend.TextStyle.Font.Size = vg.Points(14)
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	named := 0
	for i, c := range curves {
		var xys plotter.XYs
		for _, m := range ms {
			if v := c.value(m); finite(v) {
				xys = append(xys, plotter.XY{X: float64(m.Iteration), Y: v})
			}
		}
		if len(xys) > 0 {
			addLine(p, c.name, xys, i)
		}
		if c.name != "" {
			named++
		}
	}
	if fromZero && p.Y.Min <= p.Y.Max { // not for an axis without data
		p.Y.Min = 0
	}
	makeRoom(p, named)
	return p
}

// makeRoom raises the top of p's y axis so that a legend of n entries,
// drawn in the top right corner, stays clear of the curves.
func makeRoom(p *plot.Plot, n int) {
	// An axis without data yet runs from +Inf down to -Inf.
	if span := p.Y.Max - p.Y.Min; n > 0 && finite(span) {
		p.Y.Max += span * 0.08 * float64(n)
	}
}

// addLine draws a line with a mark at every point, so that a curve of a
// single iteration still shows, and a legend entry unless name is empty.
// The points must be finite.
func addLine(p *plot.Plot, name string, xys plotter.XYs, i int) {
	line := &plotter.Line{XYs: xys, LineStyle: plotter.DefaultLineStyle}
	line.Color, line.Width = plotutil.Color(i), vg.Points(1.5)
	points := &plotter.Scatter{XYs: xys, GlyphStyle: plotter.DefaultGlyphStyle}
	points.Color, points.Shape, points.Radius = plotutil.Color(i), plotutil.Shape(i), vg.Points(2.5)
	p.Add(line, points)
	if name != "" {
		p.Legend.Add(name, line, points)
	}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// evalOpponents lists the opponents of any evaluation in ms, sorted.
func evalOpponents(ms []Metrics) []string {
	seen := map[string]bool{}
	for _, m := range ms {
		for o := range m.Eval {
			seen[o] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// eloPoints are the Elo results against one opponent with their intervals.
type eloPoints []struct{ x, elo, low, high float64 }

func (e eloPoints) Len() int                { return len(e) }
func (e eloPoints) XY(i int) (x, y float64) { return e[i].x, e[i].elo }
func (e eloPoints) YError(i int) (low, high float64) {
	return e[i].elo - e[i].low, e[i].high - e[i].elo
}

// addEloBars draws the Elo curve against opponent with error bars.
func addEloBars(p *plot.Plot, ms []Metrics, opponent string, i int) error {
	var pts eloPoints
	for _, m := range ms {
		if r, ok := m.Eval[opponent]; ok && finite(r.Elo) && finite(r.EloLow) && finite(r.EloHigh) {
			pts = append(pts, struct{ x, elo, low, high float64 }{float64(m.Iteration), r.Elo, r.EloLow, r.EloHigh})
		}
	}
	if len(pts) == 0 {
		return nil
	}
	bars, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return fmt.Errorf("plot: Elo against %s: %w", opponent, err)
	}
	bars.Color = plotutil.Color(i)
	p.Add(bars)
	xys, err := plotter.CopyXYs(pts)
	if err != nil {
		return fmt.Errorf("plot: Elo against %s: %w", opponent, err)
	}
	addLine(p, opponent, xys, i)
	return nil
}

// savePanels draws a grid of plots into a PNG of w x h pixels at path.
func savePanels(path string, rows [][]*plot.Plot, w, h vg.Length) error {
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(72))
	tiles := draw.Tiles{
		Rows: len(rows), Cols: len(rows[0]),
		PadTop: 8, PadBottom: 8, PadLeft: 8, PadRight: 16, PadX: 24, PadY: 24,
	}
	canvases := plot.Align(rows, tiles, draw.New(img))
	for j, row := range rows {
		for i, p := range row {
			p.Draw(canvases[j][i])
		}
	}
	if err := model.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
		return err
	}); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}
