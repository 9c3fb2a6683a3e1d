package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestSetProgress(t *testing.T) {
	cfg := DefaultTrainConfig()
	cfg.Schedule, cfg.LR, cfg.MinLR, cfg.WarmupSteps = scheduleCosine, 0.1, 0.01, 0
	net, err := New(Config{Blocks: 1, Channels: 4, ValuePlanes: 1, ValueHidden: 4}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTrainer(net, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cosine := func(p float64) float64 { return 0.01 + 0.09*0.5*(1+math.Cos(math.Pi*min(1, p))) }
	tests := []struct {
		name  string
		steps int64
		p     float64
	}{
		{"start", 0, 0},
		{"no steps yet", 0, 0.3},
		{"a quarter", 1000, 0.25},
		{"half", 1000, 0.5},
		{"nearly done", 1000, 0.99},
		{"done", 1000, 1},
		{"past the end", 1000, 1.7},
		{"barely started", 1000, 1e-12},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr.opt.T = tc.steps
			if err := tr.SetProgress(tc.p); err != nil {
				t.Fatal(err)
			}
			want := cosine(tc.p)
			if tc.steps == 0 {
				want = 0.1 // the first step is the start, whatever p
			}
			if got := tr.cfg.learningRate(tr.opt.T); math.Abs(got-want) > 1e-3*want {
				t.Errorf("rate at progress %v after %d steps: %v, want %v", tc.p, tc.steps, got, want)
			}
		})
	}
	for _, p := range []float64{-0.1, math.NaN()} {
		if err := tr.SetProgress(p); err == nil {
			t.Errorf("SetProgress(%v): no error", p)
		}
	}
}
