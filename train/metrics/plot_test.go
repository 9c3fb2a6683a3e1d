package metrics

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/train/internal/charttest"
	"github.com/deathstacks/deathstacks/train/report"
	"gonum.org/v1/plot"
)

// runMetrics makes n iterations of plausible metrics, with an evaluation
// every third iteration, which from the sixth on says how its games ended
// (those before as logs of earlier versions).
func runMetrics(n int) []Iteration {
	var ms []Iteration
	for i := 1; i <= n; i++ {
		x := float64(i)
		m := Iteration{
			Iteration: i, PolicyLoss: 3 + 1.5*math.Exp(-x/8), ValueLoss: 0.5 + 0.4*math.Exp(-x/5),
			L2Loss: 0.05 + 0.002*x, PolicyEntropy: 3.8 - 1.2*(1-math.Exp(-x/10)), LR: 0.002 * math.Cos(x/float64(n)*math.Pi/2),
			MeanGameLength: 180 - 60*(1-math.Exp(-x/6)), PositionsPerSec: 40 + 3*math.Sin(x), EvalsPerSec: 2500 + 100*math.Sin(x),
			SamplesPerSec: 900 + 50*math.Cos(x), RedWinShare: 0.35, BlueWinShare: 0.3, DrawShare: 0.1, MoveLimitShare: 0.25,
			ResignedShare: 0.1, SelfPlaySec: 60, TrainSec: 15, ElapsedSec: 80 * x, BufferSize: min(i, 10) * 5000,
		}
		m.TotalLoss = m.PolicyLoss + m.ValueLoss + m.L2Loss
		if i%3 == 0 {
			m.EvalSec = 20
			score := min(1, 0.5+0.6*(1-math.Exp(-x/8)))                // capped at 1 later on
			elo := 400 * math.Log10((score*20+0.5)/((1-score)*20+0.5)) // one virtual draw
			m.Eval = map[string]EvalResult{
				"random":            {Games: 20, Score: score, Elo: elo, EloLow: elo - 120, EloHigh: elo + 120},
				"alphabeta:depth=2": {Games: 20, Score: score / 2, Elo: elo - 300, EloLow: elo - 420, EloHigh: elo - 180},
			}
			if i >= 6 {
				for o, r := range m.Eval {
					limit := int(20 * (1 - r.Score) * 0.8)
					r.Conversion = &report.Conversion{DrawsMoveLimit: limit, DrawsAAhead: limit / 2, MeanLeadA: 120,
						Decided: 20 - limit, MeanDecidedPlies: 90 + 100*math.Exp(-x/10)}
					m.Eval[o] = r
				}
			}
		}
		ms = append(ms, m)
	}
	return ms
}

func TestPlotRun(t *testing.T) {
	dir := t.TempDir()
	for _, m := range runMetrics(12) {
		if err := Append(filepath.Join(dir, File), m); err != nil {
			t.Fatal(err)
		}
	}
	if err := PlotRun(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{LossChart, SelfPlayChart, EvalChart} {
		charttest.CheckPNG(t, filepath.Join(dir, name))
	}
}

func TestPlotWithoutEvaluations(t *testing.T) {
	dir := t.TempDir()
	ms := runMetrics(1) // a single iteration, no evaluation yet
	if err := Plot(dir, ms); err != nil {
		t.Fatal(err)
	}
	charttest.CheckPNG(t, filepath.Join(dir, LossChart))
	if _, err := os.Stat(filepath.Join(dir, EvalChart)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("eval.png written without evaluations: %v", err)
	}
}

func TestPlotSkipsNonFiniteValues(t *testing.T) {
	ms := runMetrics(6)
	ms[2].TotalLoss, ms[3].PolicyLoss = math.NaN(), math.Inf(1)
	ms[5].Eval["random"] = EvalResult{Games: 2, Score: 1, Elo: math.Inf(1)}
	if err := Plot(t.TempDir(), ms); err != nil {
		t.Fatal(err)
	}
}

func TestPlotWithoutData(t *testing.T) {
	nan := math.NaN()
	ms := []Iteration{{Iteration: 1, PolicyLoss: nan, ValueLoss: nan, L2Loss: nan, TotalLoss: nan, PolicyEntropy: nan,
		LR: nan, MeanGameLength: nan, PositionsPerSec: nan, EvalsPerSec: nan, SamplesPerSec: nan, RedWinShare: nan,
		BlueWinShare: nan, DrawShare: nan, MoveLimitShare: nan, ResignedShare: nan, SelfPlaySec: nan, TrainSec: nan,
		EvalSec: nan, Eval: map[string]EvalResult{"random": {Score: nan, Elo: nan}}}}
	if err := Plot(t.TempDir(), ms); err != nil {
		t.Fatal(err)
	}
}

func TestPlotErrors(t *testing.T) {
	dir := t.TempDir()
	if err := PlotRun(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("PlotRun without metrics: %v", err)
	}
	if err := Plot(dir, nil); err == nil {
		t.Error("Plot of nothing succeeded")
	}
	if err := Plot(filepath.Join(dir, "missing"), runMetrics(2)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Plot into a missing directory: %v", err)
	}
}

func TestIterationTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   []float64
	}{
		{1, 1, []float64{1}},
		{1, 3, []float64{1, 2, 3}},
		{0.8, 3.2, []float64{1, 2, 3}},
		{1, 12, []float64{2, 4, 6, 8, 10, 12}},
		{1, 50, []float64{5, 10, 15, 20, 25, 30, 35, 40, 45, 50}},
		{1, 230, []float64{50, 100, 150, 200}},
	} {
		var got []float64
		for _, tick := range (iterationTicks{}).Ticks(tc.lo, tc.hi) {
			if tick.Label != strconv.Itoa(int(tick.Value)) {
				t.Errorf("tick %v labelled %q", tick.Value, tick.Label)
			}
			got = append(got, tick.Value)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("ticks of %v..%v: %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// The panels a person reads at a glance: every loss on its own axis, the
// shares and scores on a fixed 0..1 axis, whole iterations on the x axis.
func TestPlotPanels(t *testing.T) {
	for _, n := range []int{3, 50} {
		ms := runMetrics(n)
		loss := lossPanels(ms)
		value := loss[0][1]
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, m := range ms {
			lo, hi = min(lo, m.ValueLoss), max(hi, m.ValueLoss)
		}
		if value.Title.Text != "Value loss" || value.Y.Min > lo || value.Y.Max < hi || value.Y.Max-value.Y.Min > 3*(hi-lo) {
			t.Errorf("%d iterations: value loss %.3f..%.3f on an axis %.3f..%.3f: not its own", n, lo, hi, value.Y.Min, value.Y.Max)
		}
		for _, row := range loss {
			for _, p := range row {
				if _, ok := p.X.Tick.Marker.(iterationTicks); !ok {
					t.Errorf("%q: the iteration axis has fractional ticks", p.Title.Text)
				}
			}
		}
		outcomes := selfPlayPanels(ms)[0][1]
		eval, err := evalPanels(ms)
		if err != nil {
			t.Fatal(err)
		}
		score := eval[0][0]
		for _, p := range []*plot.Plot{outcomes, score} {
			if p.Y.Min != 0 || p.Y.Max != 1 {
				t.Errorf("%q: y axis %v..%v, want 0..1", p.Title.Text, p.Y.Min, p.Y.Max)
			}
		}
	}
}

// eval.png shows the draws at the move limit and the length of the
// decided games once some evaluation says how its games ended, and a log
// of an earlier version keeps its one row of score and Elo.
func TestEvalPanelsConversion(t *testing.T) {
	for _, tc := range []struct {
		name string
		ms   []Iteration
		rows int
	}{
		{"earlier version", runMetrics(5), 1},
		{"from the sixth iteration on", runMetrics(12), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			panels, err := evalPanels(tc.ms)
			if err != nil {
				t.Fatal(err)
			}
			if len(panels) != tc.rows {
				t.Fatalf("%d rows of panels, want %d", len(panels), tc.rows)
			}
			if tc.rows == 1 {
				return
			}
			limit, plies := panels[1][0], panels[1][1]
			if !strings.Contains(limit.Title.Text, "move limit") || limit.Y.Min != 0 || limit.Y.Max != 1 {
				t.Errorf("%q: y axis %v..%v, want the move-limit draws on 0..1", limit.Title.Text, limit.Y.Min, limit.Y.Max)
			}
			if !strings.Contains(plies.Title.Text, "decided games") || plies.Y.Min != 0 || plies.Y.Max < 90 {
				t.Errorf("%q: y axis %v..%v, want the plies of decided games from 0", plies.Title.Text, plies.Y.Min, plies.Y.Max)
			}
			dir := t.TempDir()
			if err := Plot(dir, tc.ms); err != nil {
				t.Fatal(err)
			}
			charttest.CheckPNG(t, filepath.Join(dir, EvalChart))
		})
	}
}

// TestPlotPictures writes the plots of 3 and of 50 iterations into
// DEATHSTACKS_PLOT_DIR, for a person to look at.
func TestPlotPictures(t *testing.T) {
	out := os.Getenv("DEATHSTACKS_PLOT_DIR")
	if out == "" {
		t.Skip("set DEATHSTACKS_PLOT_DIR to look at the plots")
	}
	for _, n := range []int{3, 50} {
		dir := filepath.Join(out, strconv.Itoa(n))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := Plot(dir, runMetrics(n)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPlainTicks(t *testing.T) {
	for _, tc := range []struct{ lo, hi float64 }{{0, 50000}, {-250, 750}, {0, 0.0018}, {3.1, 3.4}} {
		plain, def := (plainTicks{}).Ticks(tc.lo, tc.hi), plot.DefaultTicks{}.Ticks(tc.lo, tc.hi)
		for i, tick := range plain {
			if tick.Label == "" {
				continue // a minor tick
			}
			if strings.Contains(tick.Label, ".") && strings.HasSuffix(tick.Label, "0") || strings.HasSuffix(tick.Label, ".") {
				t.Errorf("ticks of %v..%v: label %q has trailing zeros", tc.lo, tc.hi, tick.Label)
			}
			v, err := strconv.ParseFloat(tick.Label, 64)
			w, _ := strconv.ParseFloat(def[i].Label, 64)
			if err != nil || v != w {
				t.Errorf("ticks of %v..%v: label %q, default %q", tc.lo, tc.hi, tick.Label, def[i].Label)
			}
		}
	}
}

// TestOptionalLossCurves: an optional loss gets a curve once some
// iteration has it, and the value panel stays the value loss's own.
func TestOptionalLossCurves(t *testing.T) {
	reply := curve{"reply", func(m Iteration) float64 { return m.ReplyLoss }}
	score := curve{"score", func(m Iteration) float64 { return m.ScoreLoss }}
	tests := []struct {
		name string
		ms   []Iteration
		want []string
	}{
		{"none", []Iteration{{Iteration: 1}, {Iteration: 2}}, nil},
		{"one, later", []Iteration{{Iteration: 1}, {Iteration: 2, ScoreLoss: 0.4}}, []string{"score"}},
		{"both", []Iteration{{Iteration: 1, ReplyLoss: 3.9, ScoreLoss: 0.5}}, []string{"reply", "score"}},
		{"not finite", []Iteration{{Iteration: 1, ReplyLoss: math.NaN()}}, []string{"reply"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range withOptional(nil, tc.ms, reply, score) {
				got = append(got, c.name)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("curves %v, want %v", got, tc.want)
			}
		})
	}
	ms := runMetrics(5)
	for i := range ms {
		ms[i].OwnershipLoss, ms[i].ScoreLoss = ms[i].ValueLoss*0.9, ms[i].ValueLoss*1.1
	}
	if p := lossPanels(ms)[0][1]; p.Title.Text != "Value loss" {
		t.Errorf("value panel titled %q", p.Title.Text)
	}
	if err := Plot(t.TempDir(), ms); err != nil {
		t.Fatal(err)
	}
}
