package model

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/deathstacks/deathstacks/env"
)

// randomNetwork returns a network of cfg whose weights, biases included,
// are all random, so that every parameter shows in the outputs.
func randomNetwork(t testing.TB, cfg Config, seed uint64) *Network {
	t.Helper()
	n, err := New(cfg, seeded(seed))
	if err != nil {
		t.Fatal(err)
	}
	rng := seeded(seed + 1)
	for i, s := range cfg.specs() {
		if !s.Decay {
			for j := range n.weights[i] {
				n.weights[i][j] = float32(rng.NormFloat64() * 0.1)
			}
		}
	}
	return n
}

// fusedTestConfigs are the networks the fused graphs are checked against
// the stock ones at: the tests' tiny one, no residual block, odd channel
// counts and layer widths, and the default.
var fusedTestConfigs = []Config{
	tinyConfig,
	{Blocks: 0, Channels: 5, ValuePlanes: 3, ValueHidden: 7},
	{Blocks: 2, Channels: 17, ValuePlanes: 2, ValueHidden: 16},
	DefaultConfig(),
}

// TestFusedMatchesStock runs the fused graph of random networks on batch
// sizes up to the engines' maximum and compares logits and values with the
// stock graph's on the whole batch: the stock graph's rows are independent
// of each other (no batch statistics), so its first rows are the answer
// for every shorter batch, and the slow stock graph runs once. Every size
// is checked with the assembly kernels; the portable ones (their own CI
// run, slow under -race) check the default network at the sizes that
// reach every row count of the microkernel's 6-row tiles (1 to 7, 11 to
// 13), both sides of 16 and the server's batch of 32.
func TestFusedMatchesStock(t *testing.T) {
	for _, nc := range fusedTestConfigs {
		maxBatch := 9
		if nc == DefaultConfig() {
			maxBatch = 32 // the server's batch
		}
		var sizes []int
		for size := 1; size <= maxBatch; size++ {
			sizes = append(sizes, size)
		}
		if nc == DefaultConfig() && Kernels() == "go" {
			sizes = []int{1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 16, 17, 31, 32}
		}
		t.Run(fmt.Sprintf("%v/max=%d", nc, maxBatch), func(t *testing.T) {
			n := randomNetwork(t, nc, 7)
			samples := samplePositions(seeded(8), maxBatch)
			fill := func(size int) func([]float32) {
				return func(xs []float32) {
					for i, s := range samples[:size] {
						copy(xs[i*env.ObservationSize:], s.Obs)
					}
				}
			}
			so, err := newEngine(n, maxBatch, true).forward(maxBatch, fill(maxBatch))
			if err != nil {
				t.Fatal(err)
			}
			sl, sv := so.actionLogits(maxBatch), slices.Clone(so.values[:maxBatch])
			fused := newEngine(n, maxBatch, false)
			for _, size := range sizes {
				fo, err := fused.forward(size, fill(size))
				if err != nil {
					t.Fatal(err)
				}
				compareOutputs(t, size, fo.actionLogits(size), sl[:size*env.NumActions], "logit")
				compareOutputs(t, size, fo.values[:size], sv[:size], "value")
			}
		})
	}
}

// actionLogits returns the logits of o's first rows rows in action order.
func (o batchOutput) actionLogits(rows int) []float32 {
	l := make([]float32, rows*env.NumActions)
	for r := range rows {
		row := o.logits[r*env.NumActions : (r+1)*env.NumActions]
		for a := range env.NumActions {
			l[r*env.NumActions+a] = row[o.order.Index(env.Action(a))]
		}
	}
	return l
}

// compareOutputs fails unless got and want agree to 1e-4 relative to the
// largest magnitude of want.
func compareOutputs(t *testing.T, batch int, got, want []float32, what string) {
	t.Helper()
	scale := 1.0
	for _, w := range want {
		scale = max(scale, math.Abs(float64(w)))
	}
	for i := range want {
		if d := math.Abs(float64(got[i] - want[i])); !(d <= 1e-4*scale) {
			t.Fatalf("batch %d: %s %d is %v, stock graph %v", batch, what, i, got[i], want[i])
		}
	}
}

// TestFusedFollowsTraining checks that a fused engine repacks the weights
// after a training step: its outputs follow the stock graph's.
// TestFusedPriorsMatchStock compares what Evaluate returns through both
// graphs, whose logits come in different orders.
func TestFusedPriorsMatchStock(t *testing.T) {
	n := randomNetwork(t, DefaultConfig(), 5)
	samples := samplePositions(seeded(6), 13)
	obs, legal, priors, values := evalArgs(samples)
	if err := n.Evaluate(obs, legal, priors, values); err != nil {
		t.Fatal(err)
	}
	_, _, stockPriors, stockValues := evalArgs(samples)
	if err := n.EvaluateStock(obs, legal, stockPriors, stockValues); err != nil {
		t.Fatal(err)
	}
	compareOutputs(t, len(samples), values, stockValues, "value")
	for i := range samples {
		compareOutputs(t, len(samples), priors[i], stockPriors[i], fmt.Sprintf("position %d: prior", i))
	}
}

func TestFusedFollowsTraining(t *testing.T) {
	n := randomNetwork(t, tinyConfig, 3)
	tc := DefaultTrainConfig()
	tc.BatchSize = 4
	tr, err := NewTrainer(n, tc)
	if err != nil {
		t.Fatal(err)
	}
	samples := samplePositions(seeded(4), 4)
	obs, legal, priors, values := evalArgs(samples)
	before := make([]float32, len(values))
	if err := n.Evaluate(obs, legal, priors, before); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, err := tr.Step(samples); err != nil {
			t.Fatal(err)
		}
	}
	if err := n.Evaluate(obs, legal, priors, values); err != nil {
		t.Fatal(err)
	}
	_, _, _, stock := evalArgs(samples)
	if err := n.EvaluateStock(obs, legal, slices.Clone(priors), stock); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(before, values) {
		t.Error("values did not change after training steps")
	}
	compareOutputs(t, len(samples), values, stock, "value")
}

func BenchmarkForwardCompare(b *testing.B) {
	n := randomNetwork(b, DefaultConfig(), 1)
	samples := samplePositions(seeded(2), 32)
	for _, batch := range []int{1, 8, 32} {
		for _, graph := range []string{"stock", "fused"} {
			b.Run(fmt.Sprintf("%s/B=%d", graph, batch), func(b *testing.B) {
				e := newEngine(n, batch, graph == "stock")
				fill := func(xs []float32) {
					for i, s := range samples[:batch] {
						copy(xs[i*env.ObservationSize:], s.Obs)
					}
				}
				if _, err := e.forward(batch, fill); err != nil { // compile
					b.Fatal(err)
				}
				cpu := processCPU()
				for b.Loop() {
					if _, err := e.forward(batch, fill); err != nil {
						b.Fatal(err)
					}
				}
				cpu = processCPU() - cpu
				evals := float64(b.N*batch) / b.Elapsed().Seconds()
				b.ReportMetric(evals, "evals/s")
				b.ReportMetric(evals*float64(DefaultConfig().FLOPs())/1e9, "GFLOP/s")
				if cpu > 0 {
					// On a loaded machine the CPU time is the steadier figure.
					b.ReportMetric(float64(b.N*batch)/cpu.Seconds(), "evals/cpu-s")
				}
			})
		}
	}
}
