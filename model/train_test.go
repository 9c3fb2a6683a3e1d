package model

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
)

// tinyTrainConfig is a fast training setup for tests.
func tinyTrainConfig(batch int) TrainConfig {
	c := DefaultTrainConfig()
	c.BatchSize = batch
	c.LR = 1e-2
	c.WarmupSteps = 0
	return c
}

func TestLossMatchesReference(t *testing.T) {
	n, _ := New(tinyConfig, seeded(1))
	tc := tinyTrainConfig(4)
	tc.ValueWeight = 0.5
	tr, err := NewTrainer(n, tc)
	if err != nil {
		t.Fatal(err)
	}
	batch := samplePositions(seeded(2), 4)
	// Spread one target over several actions.
	batch[1].Policy = make([]float32, len(batch[1].Legal))
	batch[1].Policy[0], batch[1].Policy[1] = 0.25, 0.75
	var wantPol, wantVal, wantL2 float64
	for _, s := range batch {
		logits, v := refForward(tinyConfig, n.weights, s.Obs)
		p, q := refLosses(logits, v, s)
		wantPol += p / 4
		wantVal += q / 4
	}
	for i, s := range tinyConfig.specs() {
		if s.Decay {
			for _, w := range n.weights[i] {
				wantL2 += float64(w) * float64(w)
			}
		}
	}
	wantL2 *= tc.WeightDecay
	l, err := tr.Step(batch)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"policy", l.Policy, wantPol},
		{"value", l.Value, wantVal},
		{"l2", l.L2, wantL2},
		{"total", l.Total, wantPol + 0.5*wantVal + wantL2},
	} {
		if math.Abs(c.got-c.want) > 1e-4*(1+math.Abs(c.want)) {
			t.Errorf("%s loss %v, reference %v", c.name, c.got, c.want)
		}
	}
	if l.Entropy <= 0 || l.Entropy > math.Log(float64(env.NumActions)) {
		t.Errorf("entropy %v", l.Entropy)
	}
	if l.LR != tc.LR {
		t.Errorf("learning rate %v, want %v", l.LR, tc.LR)
	}
	if n.Steps() != 1 {
		t.Errorf("network has %d steps after one", n.Steps())
	}
}

// TestLossWithLargeLogits checks the masked log-softmax where gorgonia's
// would fail: a position whose only legal action is index 0, and logits of
// thousands, with illegal actions far above the legal ones.
func TestLossWithLargeLogits(t *testing.T) {
	n, _ := New(tinyConfig, seeded(1))
	pb := len(tinyConfig.specs()) - 7 // policy.b
	for a := range n.weights[pb] {
		n.weights[pb][a] = 3000 // illegal actions dominate
	}
	n.weights[pb][0] = -3000
	n.weights[pb][5] = -2990
	tr, err := NewTrainer(n, tinyTrainConfig(2))
	if err != nil {
		t.Fatal(err)
	}
	s := samplePositions(seeded(2), 2)
	batch := []Sample{
		{Obs: s[0].Obs, Legal: []env.Action{0}, Policy: []float32{1}, Value: 1},
		{Obs: s[1].Obs, Legal: []env.Action{0, 5}, Policy: []float32{1, 0}, Value: -1},
	}
	var wantPol float64
	for _, s := range batch {
		logits, v := refForward(tinyConfig, n.weights, s.Obs)
		p, _ := refLosses(logits, v, s)
		wantPol += p / 2
	}
	l, err := tr.Step(batch)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(l.Policy-wantPol) > 1e-3*(1+wantPol) {
		t.Errorf("policy loss %v, reference %v", l.Policy, wantPol)
	}
	for i, w := range n.weights {
		for _, x := range w {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("tensor %d has %v after the step", i, x)
			}
		}
	}
}

func TestOverfitSmallBatch(t *testing.T) {
	n, _ := New(tinyConfig, seeded(1))
	tr, err := NewTrainer(n, tinyTrainConfig(8))
	if err != nil {
		t.Fatal(err)
	}
	batch := samplePositions(seeded(3), 8)
	first, err := tr.Step(batch)
	if err != nil {
		t.Fatal(err)
	}
	// The losses pass the bounds after some 50 steps (policy 0.07 and
	// value 0.003 at 60, 0.009 and 0.002 at 80): 80 steps leave a margin.
	const steps = 80
	var last Losses
	for range steps {
		if last, err = tr.Step(batch); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("first %+v\nlast %+v", first, last)
	if last.Policy > 0.3 || last.Value > 0.05 {
		t.Errorf("after %d steps on one batch: policy loss %v (from %v), value loss %v (from %v)",
			steps, last.Policy, first.Policy, last.Value, first.Value)
	}
	// The inference graphs use the trained weights.
	obs, legal, priors, values := evalArgs(batch)
	if err := n.Evaluate(obs, legal, priors, values); err != nil {
		t.Fatal(err)
	}
	for i, s := range batch {
		best := slices.Index(s.Policy, 1)
		if priors[i][best] < 0.5 || math.Abs(float64(values[i]-s.Value)) > 0.5 {
			t.Errorf("sample %d: prior of the target %v, value %v for %v", i, priors[i][best], values[i], s.Value)
		}
	}
}

func TestTrainingIsDeterministic(t *testing.T) {
	for _, opt := range []string{adamName, adamWName, sgdName} {
		t.Run(opt, func(t *testing.T) {
			batches := samplePositions(seeded(4), 12)
			run := func() *Network {
				n, _ := New(tinyConfig, seeded(9))
				tc := tinyTrainConfig(4)
				tc.Optimizer = opt
				tr, err := NewTrainer(n, tc)
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < len(batches); i += 4 {
					if _, err := tr.Step(batches[i : i+4]); err != nil {
						t.Fatal(err)
					}
				}
				return n
			}
			a, b := run(), run()
			for i := range a.weights {
				if !slices.Equal(a.weights[i], b.weights[i]) {
					t.Fatalf("tensor %d differs between two identical runs", i)
				}
			}
		})
	}
}

// TestAdamWLossHasNoL2 checks that AdamW's decay stays out of the loss
// while it still shrinks the weights that decay.
func TestAdamWLossHasNoL2(t *testing.T) {
	batch := samplePositions(seeded(2), 4)
	step := func(opt string, decay float64) (Losses, *Network) {
		n, _ := New(tinyConfig, seeded(1))
		tc := tinyTrainConfig(4)
		tc.Optimizer, tc.WeightDecay = opt, decay
		tr, err := NewTrainer(n, tc)
		if err != nil {
			t.Fatal(err)
		}
		l, err := tr.Step(batch)
		if err != nil {
			t.Fatal(err)
		}
		return l, n
	}
	adam, _ := step(adamName, 0.1)
	adamW, decayed := step(adamWName, 0.1)
	if adamW.L2 != 0 || adam.L2 == 0 || adamW.Total != adam.Total-adam.L2 {
		t.Errorf("losses: adamw L2 %v total %v, adam L2 %v total %v", adamW.L2, adamW.Total, adam.L2, adam.Total)
	}
	_, undecayed := step(adamWName, 0)
	for i, s := range tinyConfig.specs() {
		if same := slices.Equal(decayed.weights[i], undecayed.weights[i]); same == s.Decay {
			t.Errorf("%s: weights with and without AdamW's decay equal: %v", s.Name, same)
		}
	}
}

// TestL2OfLastStep checks the sum of squares a step's pass leaves for
// the next step's L2 term against the one a fresh trainer computes from
// the same weights, bit for bit: the policy bias (6912 values) is not a
// whole number of the pass's sections.
func TestL2OfLastStep(t *testing.T) {
	n, _ := New(tinyConfig, seeded(1))
	tc := tinyTrainConfig(4)
	tr, err := NewTrainer(n, tc)
	if err != nil {
		t.Fatal(err)
	}
	batch := samplePositions(seeded(2), 4)
	for range 2 {
		if _, err := tr.Step(batch); err != nil {
			t.Fatal(err)
		}
	}
	if !tr.l2.valid || tr.l2.version != n.version.Load() {
		t.Fatal("no sum of squares kept from the last step")
	}
	fresh, err := NewTrainer(n.Clone(), tc)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tr.squaredWeights(), fresh.squaredWeights(); got != want || got <= 0 {
		t.Errorf("sum of squares after a step %v, computed afresh %v", got, want)
	}
}

func TestStepRejectsBadSamples(t *testing.T) {
	n, _ := New(tinyConfig, seeded(1))
	tr, err := NewTrainer(n, tinyTrainConfig(1))
	if err != nil {
		t.Fatal(err)
	}
	good := samplePositions(seeded(2), 1)[0]
	tests := []struct {
		name string
		edit func(*Sample)
		want string
	}{
		{"short observation", func(s *Sample) { s.Obs = s.Obs[1:] }, "observation values"},
		{"no legal actions", func(s *Sample) { s.Legal, s.Policy = nil, nil }, "no legal actions"},
		{"policy length", func(s *Sample) { s.Policy = s.Policy[1:] }, "policy values for"},
		{"policy sum", func(s *Sample) { s.Policy = make([]float32, len(s.Legal)) }, "sums to"},
		{"negative policy", func(s *Sample) { s.Policy = slices.Clone(s.Policy); s.Policy[0] = -1 }, "want 0 to 1"},
		{"value", func(s *Sample) { s.Value = 2 }, "value 2"},
		{"NaN value", func(s *Sample) { s.Value = float32(math.NaN()) }, "value NaN"},
		{"action", func(s *Sample) { s.Legal = slices.Clone(s.Legal); s.Legal[0] = -1 }, "out of range"},
		{"repeated action", func(s *Sample) { s.Legal = slices.Clone(s.Legal); s.Legal[1] = s.Legal[0] }, "listed twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := good
			tt.edit(&s)
			if _, err := tr.Step([]Sample{s}); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one mentioning %q", err, tt.want)
			}
		})
	}
	if _, err := tr.Step([]Sample{good, good}); err == nil {
		t.Error("a batch of 2 for batch size 1 was accepted")
	}
	if n.Steps() != 0 {
		t.Errorf("rejected batches changed the step count to %d", n.Steps())
	}
}

func TestTrainConfigValidate(t *testing.T) {
	testValidate(t, DefaultTrainConfig, TrainConfig.Validate, []validateCase[TrainConfig]{
		{"default", func(*TrainConfig) {}, ""},
		{"sgd", func(c *TrainConfig) { c.Optimizer = sgdName }, ""},
		{"adamw", func(c *TrainConfig) { c.Optimizer = adamWName }, ""},
		{"cosine", func(c *TrainConfig) { c.Schedule = scheduleCosine }, ""},
		{"step", func(c *TrainConfig) { c.Schedule = scheduleStep }, ""},
		{"batch", func(c *TrainConfig) { c.BatchSize = 0 }, "batch_size"},
		{"optimizer", func(c *TrainConfig) { c.Optimizer = "rmsprop" }, "optimizer"},
		{"lr", func(c *TrainConfig) { c.LR = 0 }, "lr"},
		{"lr NaN", func(c *TrainConfig) { c.LR = math.NaN() }, "lr"},
		{"momentum", func(c *TrainConfig) { c.Momentum = 1 }, "momentum"},
		{"beta1", func(c *TrainConfig) { c.Beta1 = -0.1 }, "beta1"},
		{"beta2", func(c *TrainConfig) { c.Beta2 = 1 }, "beta2"},
		{"epsilon", func(c *TrainConfig) { c.Epsilon = 0 }, "epsilon"},
		{"weight decay", func(c *TrainConfig) { c.WeightDecay = -1 }, "weight_decay"},
		{"value weight", func(c *TrainConfig) { c.ValueWeight = -1 }, "value_weight"},
		{"warmup", func(c *TrainConfig) { c.WarmupSteps = -1 }, "warmup_steps"},
		{"schedule", func(c *TrainConfig) { c.Schedule = "linear" }, "schedule"},
		{"step every", func(c *TrainConfig) { c.Schedule, c.StepEvery = scheduleStep, 0 }, "step_every"},
		{"step gamma", func(c *TrainConfig) { c.Schedule, c.StepGamma = scheduleStep, 2 }, "step_gamma"},
		{"total steps", func(c *TrainConfig) { c.Schedule, c.TotalSteps = scheduleCosine, 0 }, "total_steps"},
		{"min lr", func(c *TrainConfig) { c.Schedule, c.MinLR = scheduleCosine, 1 }, "min_lr"},
	})
}

func TestLearningRate(t *testing.T) {
	base := TrainConfig{LR: 0.1, WarmupSteps: 0, StepEvery: 10, StepGamma: 0.5, TotalSteps: 100, MinLR: 0.01}
	with := func(schedule string, warmup int) TrainConfig {
		c := base
		c.Schedule, c.WarmupSteps = schedule, warmup
		return c
	}
	tests := []struct {
		name string
		cfg  TrainConfig
		step int64
		want float64
	}{
		{"constant", with(scheduleConstant, 0), 500, 0.1},
		{"warm-up start", with(scheduleConstant, 10), 0, 0.01},
		{"warm-up middle", with(scheduleConstant, 10), 4, 0.05},
		{"warm-up done", with(scheduleConstant, 10), 10, 0.1},
		{"step before", with(scheduleStep, 0), 9, 0.1},
		{"step after one", with(scheduleStep, 0), 10, 0.05},
		{"step after two", with(scheduleStep, 0), 25, 0.025},
		{"cosine start", with(scheduleCosine, 0), 0, 0.1},
		{"cosine middle", with(scheduleCosine, 0), 50, 0.055},
		{"cosine end", with(scheduleCosine, 0), 100, 0.01},
		{"cosine after", with(scheduleCosine, 0), 1000, 0.01},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cfg.learningRate(tt.step); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("LearningRate(%d) = %v, want %v", tt.step, got, tt.want)
			}
		})
	}
}

// TestScheduleCountsOwnSteps checks that a trained network given a fresh
// trainer (a run started from it) goes through the schedule from its
// start: the schedule counts the optimiser's steps, not the network's.
func TestScheduleCountsOwnSteps(t *testing.T) {
	for _, trained := range []int64{0, 5000} {
		t.Run(fmt.Sprintf("network-steps=%d", trained), func(t *testing.T) {
			n, _ := New(tinyConfig, seeded(1))
			n.steps = trained
			tc := tinyTrainConfig(2)
			tc.WarmupSteps = 4
			tr, err := NewTrainer(n, tc)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 6 {
				l, err := tr.Step(samplePositions(seeded(uint64(i)), 2))
				if err != nil {
					t.Fatal(err)
				}
				want := tc.LR * float64(min(i+1, tc.WarmupSteps)) / float64(tc.WarmupSteps)
				if math.Abs(l.LR-want) > 1e-12 {
					t.Errorf("step %d: rate %v, want %v", i, l.LR, want)
				}
			}
			if got := n.Steps(); got != trained+6 {
				t.Errorf("network steps %d, want %d", got, trained+6)
			}
		})
	}
}

func TestStepRefusesNonFiniteLoss(t *testing.T) {
	n, _ := New(tinyConfig, seeded(1))
	tr, err := NewTrainer(n, tinyTrainConfig(2))
	if err != nil {
		t.Fatal(err)
	}
	n.weights[0][0] = float32(math.NaN())
	before := n.Clone()
	if _, err := tr.Step(samplePositions(seeded(2), 2)); err == nil {
		t.Fatal("a step with NaN weights succeeded")
	}
	if n.Steps() != 0 || !slices.Equal(n.weights[1], before.weights[1]) {
		t.Error("a failed step changed the network")
	}
}
