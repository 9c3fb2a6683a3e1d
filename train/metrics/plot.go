package metrics

import (
	"errors"
	"fmt"
	"image/color"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/deathstacks/deathstacks/train/elo"
	"github.com/deathstacks/deathstacks/train/internal/chart"
)

// The charts [PlotRun] draws into a run directory.
const (
	LossChart     = "loss.png"     // losses and policy entropy
	SelfPlayChart = "selfplay.png" // game length, outcomes, speeds, time per phase
	EvalChart     = "eval.png"     // Elo on the run's scale against training time; score, Elo, move-limit draws and decided games' length against each baseline
)

// PlotRun redraws the plots of the run in dir from its metrics.jsonl.
func PlotRun(dir string) error {
	ms, err := Read(filepath.Join(dir, File))
	if err != nil {
		return err
	}
	return Plot(dir, ms)
}

// Plot draws the curves of ms into PNG files in dir, each written
// atomically: loss.png, selfplay.png and, once some iteration has
// evaluation results, eval.png.
func Plot(dir string, ms []Iteration) error {
	if len(ms) == 0 {
		return errors.New("plot: no metrics to plot")
	}
	if err := chart.Save(filepath.Join(dir, LossChart), lossPanels(ms), 1500, 850); err != nil {
		return err
	}
	if err := chart.Save(filepath.Join(dir, SelfPlayChart), selfPlayPanels(ms), 1500, 850); err != nil {
		return err
	}
	eval, err := evalPanels(ms)
	if err != nil || eval == nil {
		return err
	}
	return chart.Save(filepath.Join(dir, EvalChart), eval, 1500, vg.Length(500*len(eval)))
}

// lossPanels are the panels of LossChart. Each loss has its own: on one
// axis the value loss and the L2 penalty, a tenth of the policy loss, would
// look flat.
func lossPanels(ms []Iteration) [][]*plot.Plot {
	// The optional losses (when a run has them) join the panel of their
	// kind: cross-entropies the policy's, squared errors the value's.
	policy := []curve{
		{"total", func(m Iteration) float64 { return m.TotalLoss }},
		{"policy", func(m Iteration) float64 { return m.PolicyLoss }},
	}
	policy = withOptional(policy, ms,
		curve{"reply", func(m Iteration) float64 { return m.ReplyLoss }},
		curve{"soft policy", func(m Iteration) float64 { return m.SoftPolicyLoss }})
	value := []curve{{"", func(m Iteration) float64 { return m.ValueLoss }}}
	value = withOptional(value, ms,
		curve{"ownership", func(m Iteration) float64 { return m.OwnershipLoss }},
		curve{"score", func(m Iteration) float64 { return m.ScoreLoss }})
	if len(value) > 1 {
		value[0].name = "value"
	}
	return [][]*plot.Plot{{
		panel("Total and policy loss", "loss", false, ms, policy...),
		panel("Value loss", "loss", false, ms, value...),
		single("L2 penalty", "loss", false, ms, func(m Iteration) float64 { return m.L2Loss }),
	}, {
		single("Policy entropy", "nats", false, ms, func(m Iteration) float64 { return m.PolicyEntropy }),
		single("Learning rate", "rate", true, ms, func(m Iteration) float64 { return m.LR }),
		single("Replay buffer", "positions", true, ms, func(m Iteration) float64 { return float64(m.BufferSize) }),
	}}
}

// withOptional returns curves with those of optional that some
// iteration of ms has (not 0).
func withOptional(curves []curve, ms []Iteration, optional ...curve) []curve {
	for _, c := range optional {
		if slices.ContainsFunc(ms, func(m Iteration) bool { return c.value(m) != 0 }) {
			curves = append(curves, c)
		}
	}
	return curves
}

// selfPlayPanels are the panels of SelfPlayChart.
func selfPlayPanels(ms []Iteration) [][]*plot.Plot {
	outcomes := panel("Self-play outcomes", "share of games", true, ms,
		curve{"red wins", func(m Iteration) float64 { return m.RedWinShare }},
		curve{"blue wins", func(m Iteration) float64 { return m.BlueWinShare }},
		curve{"draws", func(m Iteration) float64 { return m.DrawShare }},
		curve{"move limit", func(m Iteration) float64 { return m.MoveLimitShare }},
		curve{"resigned", func(m Iteration) float64 { return m.ResignedShare }})
	fixUnitAxis(outcomes)
	return [][]*plot.Plot{{
		single("Self-play game length", "plies", true, ms, func(m Iteration) float64 { return m.MeanGameLength }),
		outcomes,
		panel("Time per iteration", "seconds", true, ms,
			curve{"self-play", func(m Iteration) float64 { return m.SelfPlaySec }},
			curve{"training", func(m Iteration) float64 { return m.TrainSec }},
			curve{"evaluation", func(m Iteration) float64 { return m.EvalSec }}),
	}, {
		single("Self-play speed", "positions/s", true, ms, func(m Iteration) float64 { return m.PositionsPerSec }),
		single("Network speed", "evaluations/s", true, ms, func(m Iteration) float64 { return m.EvalsPerSec }),
		single("Training speed", "samples/s", true, ms, func(m Iteration) float64 { return m.SamplesPerSec }),
	}}
}

// evalPanels are the panels of EvalChart, or nil before any evaluation:
// the rating on the run's scale when evaluations play rating games (see
// ratingPanels), score and Elo against each baseline, and once some evaluation says how
// its games ended, the share of games drawn at the move limit and the
// mean length of the decided games.
func evalPanels(ms []Iteration) ([][]*plot.Plot, error) {
	rating, err := ratingPanels(ms)
	if err != nil {
		return nil, err
	}
	var rows [][]*plot.Plot
	if rating != nil {
		rows = append(rows, rating)
	}
	opponents := evalOpponents(ms)
	if len(opponents) == 0 {
		return rows, nil
	}
	scores := perOpponent(ms, opponents, func(r EvalResult) float64 { return r.Score })
	// A score of 1 is every game won: it cannot rise further, so the Elo
	// panel beside it, whose prior keeps it finite, tells on.
	scorePanel := panel("Score against each opponent (1: every game won)", "points per game", true, ms, scores...)
	fixUnitAxis(scorePanel)
	scorePanel.Legend.Top = false // scores climb towards the top right
	even := plotter.NewFunction(func(float64) float64 { return 0.5 })
	even.Color, even.Dashes = color.Gray{Y: 90}, []vg.Length{vg.Points(6), vg.Points(4)}
	scorePanel.Add(even)
	scorePanel.Legend.Add("0.5: even", even)
	eloPanel := panel(fmt.Sprintf("Elo against each opponent (95%% interval, prior of %g draw)", elo.PriorDraws), "Elo difference", false, ms)
	for i, o := range opponents {
		if err := addEloBars(eloPanel, ms, o, i); err != nil {
			return nil, err
		}
	}
	chart.MakeRoom(eloPanel, len(opponents))
	rows = append(rows, []*plot.Plot{scorePanel, eloPanel})
	if !hasConversion(ms) {
		return rows, nil
	}
	limitPanel := panel("Draws at the move limit against each opponent", "share of games", true, ms,
		perOpponent(ms, opponents, func(r EvalResult) float64 {
			if r.Conversion == nil || r.Games == 0 {
				return math.NaN()
			}
			return float64(r.Conversion.DrawsMoveLimit) / float64(r.Games)
		})...)
	fixUnitAxis(limitPanel)
	pliesPanel := panel("Mean length of the decided games against each opponent", "plies", true, ms,
		perOpponent(ms, opponents, func(r EvalResult) float64 {
			if r.Conversion == nil || r.Conversion.Decided == 0 {
				return math.NaN()
			}
			return r.Conversion.MeanDecidedPlies
		})...)
	for _, p := range []*plot.Plot{limitPanel, pliesPanel} { // the same iterations as above
		p.X.Min, p.X.Max = scorePanel.X.Min, scorePanel.X.Max
	}
	return append(rows, []*plot.Plot{limitPanel, pliesPanel}), nil
}

// hasConversion reports whether some evaluation in ms says how its games
// ended: logs of earlier versions do not.
func hasConversion(ms []Iteration) bool {
	for _, m := range ms {
		for _, r := range m.Eval {
			if r.Conversion != nil {
				return true
			}
		}
	}
	return false
}

// perOpponent returns a curve of value for each opponent, named with the
// number of games, NaN where an iteration did not play it.
func perOpponent(ms []Iteration, opponents []string, value func(EvalResult) float64) []curve {
	var out []curve
	for _, o := range opponents {
		out = append(out, curve{fmt.Sprintf("%s (%s)", o, gamesOf(ms, o)), func(m Iteration) float64 {
			if r, ok := m.Eval[o]; ok {
				return value(r)
			}
			return math.NaN()
		}})
	}
	return out
}

// gamesOf says how many games an evaluation against opponent plays: "20
// games", or a range when that changed during the run.
func gamesOf(ms []Iteration, opponent string) string {
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
	value func(Iteration) float64
}

// single is a panel of one unnamed curve.
func single(title, yLabel string, fromZero bool, ms []Iteration, value func(Iteration) float64) *plot.Plot {
	return panel(title, yLabel, fromZero, ms, curve{"", value})
}

// panel makes a plot of curves against the iteration; fromZero starts
// the y axis at 0, for quantities that cannot be negative.
func panel(title, yLabel string, fromZero bool, ms []Iteration, curves ...curve) *plot.Plot {
	p := chart.New(title, yLabel)
	p.X.Tick.Marker = iterationTicks{}
	p.Y.Tick.Marker = plainTicks{}
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

// nan leaves an iteration out of a curve.
var nan = math.NaN()

// evalOpponents lists the opponents of any evaluation in ms, sorted.
func evalOpponents(ms []Iteration) []string {
	seen := map[string]bool{}
	for _, m := range ms {
		for o := range m.Eval {
			seen[o] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// addEloBars draws the Elo curve against opponent with error bars.
func addEloBars(p *plot.Plot, ms []Iteration, opponent string, i int) error {
	var pts chart.Points
	for _, m := range ms {
		if r, ok := m.Eval[opponent]; ok && finite(r.Elo) && finite(r.EloLow) && finite(r.EloHigh) {
			pts = append(pts, chart.Point{X: float64(m.Iteration), Y: r.Elo, Low: r.EloLow, High: r.EloHigh})
		}
	}
	if len(pts) == 0 {
		return nil
	}
	if _, err := chart.AddIntervals(p, opponent, pts, i); err != nil {
		return fmt.Errorf("plot: Elo against %s: %w", opponent, err)
	}
	return nil
}
