package train

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"

	"github.com/deathstacks/deathstacks/train/internal/chart"
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
	loss := [][]*plot.Plot{{
		panel("Training loss", "loss", true, ms,
			curve{"total", func(m Metrics) float64 { return m.TotalLoss }},
			curve{"policy", func(m Metrics) float64 { return m.PolicyLoss }},
			curve{"value", func(m Metrics) float64 { return m.ValueLoss }},
			curve{"L2", func(m Metrics) float64 { return m.L2Loss }}),
		panel("Policy entropy", "nats", false, ms,
			curve{"", func(m Metrics) float64 { return m.PolicyEntropy }}),
		panel("Learning rate", "rate", true, ms,
			curve{"", func(m Metrics) float64 { return m.LR }}),
	}}
	if err := chart.Save(filepath.Join(dir, LossPlot), loss, 1500, 450); err != nil {
		return err
	}
	selfplay := [][]*plot.Plot{{
		panel("Self-play game length", "plies", true, ms,
			curve{"", func(m Metrics) float64 { return m.MeanGameLength }}),
		panel("Self-play outcomes", "share of games", true, ms,
			curve{"red wins", func(m Metrics) float64 { return m.RedWinShare }},
			curve{"blue wins", func(m Metrics) float64 { return m.BlueWinShare }},
			curve{"draws", func(m Metrics) float64 { return m.DrawShare }},
			curve{"move limit", func(m Metrics) float64 { return m.MoveLimitShare }},
			curve{"resigned", func(m Metrics) float64 { return m.ResignedShare }}),
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
	if err := chart.Save(filepath.Join(dir, SelfPlayPlot), selfplay, 1500, 850); err != nil {
		return err
	}
	opponents := evalOpponents(ms)
	if len(opponents) == 0 {
		return nil
	}
	var scores []curve
	for _, o := range opponents {
		scores = append(scores, curve{o, func(m Metrics) float64 {
			if r, ok := m.Eval[o]; ok {
				return r.Score
			}
			return math.NaN()
		}})
	}
	eloPanel := panel("Elo against each opponent (95% interval)", "Elo difference", false, ms)
	for i, o := range opponents {
		if err := addEloBars(eloPanel, ms, o, i); err != nil {
			return err
		}
	}
	chart.MakeRoom(eloPanel, len(opponents))
	eval := [][]*plot.Plot{{panel("Score against each opponent", "points per game", true, ms, scores...), eloPanel}}
	return chart.Save(filepath.Join(dir, EvalPlot), eval, 1500, 500)
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
	p := chart.New(title, yLabel)
	named := 0
	for i, c := range curves {
		var xys plotter.XYs
		for _, m := range ms {
			if v := c.value(m); finite(v) {
				xys = append(xys, plotter.XY{X: float64(m.Iteration), Y: v})
			}
		}
		if len(xys) > 0 {
			chart.AddLine(p, c.name, xys, i)
		}
		if c.name != "" {
			named++
		}
	}
	if fromZero && p.Y.Min <= p.Y.Max { // not for an axis without data
		p.Y.Min = 0
	}
	chart.MakeRoom(p, named)
	return p
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

// addEloBars draws the Elo curve against opponent with error bars.
func addEloBars(p *plot.Plot, ms []Metrics, opponent string, i int) error {
	var pts chart.Points
	for _, m := range ms {
		if r, ok := m.Eval[opponent]; ok && finite(r.Elo) && finite(r.EloLow) && finite(r.EloHigh) {
			pts = append(pts, chart.Point{X: float64(m.Iteration), Y: r.Elo, Low: r.EloLow, High: r.EloHigh})
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
	chart.AddLine(p, opponent, xys, i)
	return nil
}
