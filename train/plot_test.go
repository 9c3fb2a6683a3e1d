package train

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/deathstacks/deathstacks/train/internal/charttest"
)

// runMetrics makes n iterations of plausible metrics, with an evaluation
// every third iteration.
func runMetrics(n int) []Metrics {
	var ms []Metrics
	for i := 1; i <= n; i++ {
		x := float64(i)
		m := Metrics{
			Iteration: i, PolicyLoss: 3 + 1.5*math.Exp(-x/8), ValueLoss: 0.5 + 0.4*math.Exp(-x/5),
			L2Loss: 0.05 + 0.002*x, PolicyEntropy: 3.8 - 1.2*(1-math.Exp(-x/10)), LR: 0.002 * math.Cos(x/float64(n)*math.Pi/2),
			MeanGameLength: 180 - 60*(1-math.Exp(-x/6)), PositionsPerSec: 40 + 3*math.Sin(x), EvalsPerSec: 2500 + 100*math.Sin(x),
			SamplesPerSec: 900 + 50*math.Cos(x), RedWinShare: 0.35, BlueWinShare: 0.3, DrawShare: 0.1, MoveLimitShare: 0.25,
			ResignedShare: 0.1, SelfPlaySec: 60, TrainSec: 15, ElapsedSec: 80 * x,
		}
		m.TotalLoss = m.PolicyLoss + m.ValueLoss + m.L2Loss
		if i%3 == 0 {
			m.EvalSec = 20
			score := 0.5 + 0.45*(1-math.Exp(-x/8))
			elo := 400 * math.Log10(score/(1-score))
			m.Eval = map[string]EvalResult{
				"random":            {Games: 20, Score: score, Elo: elo, EloLow: elo - 120, EloHigh: elo + 120},
				"alphabeta:depth=2": {Games: 20, Score: score / 2, Elo: elo - 300, EloLow: elo - 420, EloHigh: elo - 180},
			}
		}
		ms = append(ms, m)
	}
	return ms
}

func TestPlotRun(t *testing.T) {
	dir := t.TempDir()
	for _, m := range runMetrics(12) {
		if err := AppendMetrics(filepath.Join(dir, MetricsFile), m); err != nil {
			t.Fatal(err)
		}
	}
	if err := PlotRun(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{LossPlot, SelfPlayPlot, EvalPlot} {
		charttest.CheckPNG(t, filepath.Join(dir, name))
	}
}

func TestPlotWithoutEvaluations(t *testing.T) {
	dir := t.TempDir()
	ms := runMetrics(1) // a single iteration, no evaluation yet
	if err := PlotMetrics(dir, ms); err != nil {
		t.Fatal(err)
	}
	charttest.CheckPNG(t, filepath.Join(dir, LossPlot))
	if _, err := os.Stat(filepath.Join(dir, EvalPlot)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("eval.png written without evaluations: %v", err)
	}
}

func TestPlotSkipsNonFiniteValues(t *testing.T) {
	ms := runMetrics(6)
	ms[2].TotalLoss, ms[3].PolicyLoss = math.NaN(), math.Inf(1)
	ms[5].Eval["random"] = EvalResult{Games: 2, Score: 1, Elo: math.Inf(1)}
	if err := PlotMetrics(t.TempDir(), ms); err != nil {
		t.Fatal(err)
	}
}

func TestPlotWithoutData(t *testing.T) {
	nan := math.NaN()
	ms := []Metrics{{Iteration: 1, PolicyLoss: nan, ValueLoss: nan, L2Loss: nan, TotalLoss: nan, PolicyEntropy: nan,
		LR: nan, MeanGameLength: nan, PositionsPerSec: nan, EvalsPerSec: nan, SamplesPerSec: nan, RedWinShare: nan,
		BlueWinShare: nan, DrawShare: nan, MoveLimitShare: nan, ResignedShare: nan, SelfPlaySec: nan, TrainSec: nan,
		EvalSec: nan, Eval: map[string]EvalResult{"random": {Score: nan, Elo: nan}}}}
	if err := PlotMetrics(t.TempDir(), ms); err != nil {
		t.Fatal(err)
	}
}

func TestPlotErrors(t *testing.T) {
	dir := t.TempDir()
	if err := PlotRun(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("PlotRun without metrics: %v", err)
	}
	if err := PlotMetrics(dir, nil); err == nil {
		t.Error("PlotMetrics of nothing succeeded")
	}
	if err := PlotMetrics(filepath.Join(dir, "missing"), runMetrics(2)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("PlotMetrics into a missing directory: %v", err)
	}
}
