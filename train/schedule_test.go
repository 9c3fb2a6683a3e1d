package train

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/checkpoint"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// fakeClock advances by step on every reading, so that a run's training
// time depends on what it did, not on the machine.
type fakeClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

// followingConfig is a plain smoke run whose cosine follows the run, with
// no warm-up, so that every step's rate is the cosine's.
func followingConfig(t *testing.T, dir string) runconfig.Config {
	t.Helper()
	cfg := plainSmokeConfig(t, dir)
	cfg.Optim.Schedule, cfg.Optim.TotalSteps, cfg.Optim.WarmupSteps = "cosine", 0, 0
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// cosineAt is the rate of cfg's cosine at progress p.
func cosineAt(cfg runconfig.Config, p float64) float64 {
	o := cfg.Optim
	return o.MinLR + (o.LR-o.MinLR)*0.5*(1+math.Cos(math.Pi*min(1, p)))
}

// runRates runs cfg and returns each iteration's last learning rate.
func runRates(t *testing.T, cfg runconfig.Config, opts RunOptions) []float64 {
	t.Helper()
	if _, err := Run(context.Background(), cfg, opts); err != nil {
		t.Fatal(err)
	}
	ms, err := metrics.Read(metricsPath(cfg.Output.Dir))
	if err != nil {
		t.Fatal(err)
	}
	rates := make([]float64, len(ms))
	for i, m := range ms {
		rates[i] = m.LR
	}
	return rates
}

func TestScheduleFollowsTheTimeLimit(t *testing.T) {
	cfg := followingConfig(t, t.TempDir())
	// Each clock reading is a minute: an iteration reads it once per
	// training step (4), once to save and once before the next: 6 minutes.
	cfg.Iterations, cfg.TimeLimit = 0, 20*time.Minute
	clock := &fakeClock{step: time.Minute}
	rates := runRates(t, cfg, RunOptions{Now: clock.now})
	if len(rates) != 4 {
		t.Fatalf("%d iterations in 20 minutes of 6-minute iterations, want 4", len(rates))
	}
	for i := 1; i < len(rates); i++ {
		if rates[i] >= rates[i-1] {
			t.Errorf("rates %v: want each lower than the one before", rates)
		}
	}
	if last := rates[len(rates)-1]; last != cfg.Optim.MinLR {
		t.Errorf("last rate %v, want min_lr %v: the run ended past its time limit", last, cfg.Optim.MinLR)
	}
	// Iteration 1's readings: the check before it (minute 1), then its
	// steps (minutes 2 to 5).
	if want := cosineAt(cfg, 5.0/20); math.Abs(rates[0]-want) > 1e-3*want {
		t.Errorf("rate of iteration 1 %v, want %v (the cosine at 5 of 20 minutes)", rates[0], want)
	}
}

func TestScheduleFollowsIterations(t *testing.T) {
	cfg := followingConfig(t, t.TempDir())
	cfg.Iterations, cfg.TimeLimit = 3, 0
	rates := runRates(t, cfg, RunOptions{})
	steps := float64(cfg.Optim.StepsPerIteration)
	for i, got := range rates {
		// An iteration's last step starts at (i + (steps-1)/steps) / 3.
		want := cosineAt(cfg, (float64(i)+(steps-1)/steps)/3)
		if math.Abs(got-want) > 1e-3*want {
			t.Errorf("rate of iteration %d %v, want %v", i+1, got, want)
		}
	}
}

func TestScheduleResumes(t *testing.T) {
	oneGo := followingConfig(t, t.TempDir())
	oneGo.Iterations, oneGo.TimeLimit = 0, 20*time.Minute
	want := runRates(t, oneGo, RunOptions{Now: (&fakeClock{step: time.Minute}).now})

	// The same run stopped after its second iteration and resumed.
	cfg := oneGo
	cfg.Output.Dir = t.TempDir()
	clock := &fakeClock{step: time.Minute}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	stopAfter2 := func(it int, _ *model.Network) error {
		if it == 2 {
			stop()
		}
		return nil
	}
	if _, err := Run(ctx, cfg, RunOptions{Now: clock.now, OnNetwork: stopAfter2}); err != nil {
		t.Fatal(err)
	}
	got := runRates(t, cfg, RunOptions{Resume: true, Now: clock.now})
	if len(got) != len(want) {
		t.Fatalf("resumed run's rates %v, one go's %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("resumed run's rates %v, one go's %v", got, want)
			break
		}
	}
	// The rates round to whole steps, few here: the schedule's progress
	// at the end of iteration 3 is the finer check (18 of 20 minutes).
	for _, dir := range []string{oneGo.Output.Dir, cfg.Output.Dir} {
		ck, err := checkpoint.Load(checkpoint.Path(dir, 3), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if p := ck.State.ScheduleProgress; math.Abs(p-0.9) > 1e-12 {
			t.Errorf("%s: schedule progress %v after iteration 3, want 0.9", dir, p)
		}
	}
}

func TestScheduleExtended(t *testing.T) {
	// A run of 4 iterations stopped after 2, half way, then given 8.
	cfg := followingConfig(t, t.TempDir())
	cfg.Iterations, cfg.TimeLimit = 4, 0
	cfg.Optim.StepsPerIteration = 50 // enough steps that a rate rounds to the step finely
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	stopAfter2 := func(it int, _ *model.Network) error {
		if it == 2 {
			stop()
		}
		return nil
	}
	if _, err := Run(ctx, cfg, RunOptions{OnNetwork: stopAfter2}); err != nil {
		t.Fatal(err)
	}
	ck, err := checkpoint.Load(checkpoint.Path(cfg.Output.Dir, 2), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p := ck.State.ScheduleProgress; p != 0.5 {
		t.Errorf("checkpoint's schedule progress %v, want 0.5", p)
	}
	// The rest of the cosine, from half way, over the 6 iterations left:
	// iteration 3's last step at a quarter of them is 5/8 of the cosine.
	rates := runRates(t, cfg, RunOptions{Resume: true, Iterations: 8})
	steps := float64(cfg.Optim.StepsPerIteration)
	q := (2 + (steps-1)/steps) / 8 // the run's progress at that step
	if want := cosineAt(cfg, 0.5+0.5*(q-0.25)/0.75); len(rates) != 8 || math.Abs(rates[2]-want) > 1e-2*want {
		t.Fatalf("rates %v: want %v in iteration 3", rates, want)
	}
	for i := 3; i < 8; i++ {
		if rates[i] >= rates[i-1] {
			t.Errorf("rates %v: want the cosine to go on down after the extension", rates)
		}
	}
	if last := rates[7]; math.Abs(last-cfg.Optim.MinLR) > 1e-2*cfg.Optim.MinLR {
		t.Errorf("last rate %v, want about min_lr %v", last, cfg.Optim.MinLR)
	}

	// A finished run given more stays at min_lr.
	more := runRates(t, cfg, RunOptions{Resume: true, Iterations: 9})
	if last := more[8]; last != cfg.Optim.MinLR {
		t.Errorf("rate %v after extending a finished run, want min_lr %v", last, cfg.Optim.MinLR)
	}
}
