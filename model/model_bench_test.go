package model

import (
	"fmt"
	"sync"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/graph"
	"github.com/deathstacks/deathstacks/model/internal/kernel"
	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"
)

// The benchmarks use the default architecture and report evaluations or
// samples per second; see also "deathstacks bench nn".

func BenchmarkForward(b *testing.B) {
	n, err := New(DefaultConfig(), seeded(1))
	if err != nil {
		b.Fatal(err)
	}
	samples := samplePositions(seeded(2), 64)
	for _, batch := range []int{1, 8, 16, 32, 64} {
		b.Run(fmt.Sprintf("B=%d", batch), func(b *testing.B) {
			obs, legal, priors, values := evalArgs(samples[:batch])
			if err := n.Evaluate(obs, legal, priors, values); err != nil { // compile
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if err := n.Evaluate(obs, legal, priors, values); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "evals/s")
		})
	}
}

// BenchmarkServer drives a server from concurrent callers in three shapes:
// single positions, self-play's (16 searches of 8 leaves each) and a lone
// search's (8 leaves), with one worker and with two. Besides evaluations per second it reports the
// mean batch, evaluations per CPU-second and the cores the process used.
func BenchmarkServer(b *testing.B) {
	n, err := New(DefaultConfig(), seeded(1))
	if err != nil {
		b.Fatal(err)
	}
	samples := samplePositions(seeded(2), 128)
	for _, shape := range []struct{ clients, perCall int }{{64, 1}, {16, 8}, {1, 8}} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("clients=%d/per-call=%d/workers=%d", shape.clients, shape.perCall, workers), func(b *testing.B) {
				cfg := DefaultServerConfig()
				cfg.Workers = workers
				s, err := NewServer(n, cfg)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				obs, legal, priors, values := evalArgs(samples[:cfg.MaxBatch])
				if err := s.Evaluate(obs, legal, priors, values); err != nil { // compile
					b.Fatal(err)
				}
				before, cpu := s.Stats(), processCPU()
				calls := make(chan struct{})
				var wg sync.WaitGroup
				for c := range shape.clients {
					wg.Add(1)
					go func() {
						defer wg.Done()
						lo := c * shape.perCall % len(samples)
						obs, legal, priors, values := evalArgs(samples[lo : lo+shape.perCall])
						for range calls {
							if err := s.Evaluate(obs, legal, priors, values); err != nil {
								b.Error(err)
							}
						}
					}()
				}
				b.ResetTimer()
				for range b.N {
					calls <- struct{}{}
				}
				close(calls)
				wg.Wait()
				b.StopTimer()
				st, cpu := s.Stats(), processCPU()-cpu
				b.ReportMetric(float64(b.N*shape.perCall)/b.Elapsed().Seconds(), "evals/s")
				if cpu > 0 {
					// Work per CPU-second shows whether a second worker
					// costs anything, even when it gets no core of its own.
					b.ReportMetric(float64(b.N*shape.perCall)/cpu.Seconds(), "evals/cpu-s")
					b.ReportMetric(cpu.Seconds()/b.Elapsed().Seconds(), "cores")
				}
				b.ReportMetric(float64(st.Positions-before.Positions)/float64(max(st.Batches-before.Batches, 1)), "batch")
			})
		}
	}
}

// BenchmarkTrainStep compares, side by side, the fused training graph
// (at the default batch and at 128, "deathstacks bench nn"'s
// --train-batch 128) with gorgonia's stock graph, both on the kernel
// package's Sgemm, and the stock graph on gonum's.
func BenchmarkTrainStep(b *testing.B) {
	defer G.Use(G.WhichBLAS())
	for _, v := range []struct {
		name  string
		stock bool
		blas  G.BLAS
		batch int // 0: the default
	}{
		{"fused", false, kernel.BLAS{}, 0}, {"fused-128", false, kernel.BLAS{}, 128},
		{"stock", true, kernel.BLAS{}, 0}, {"stock-gonum", true, gonum.Implementation{}, 0},
	} {
		tc := DefaultTrainConfig()
		if v.batch > 0 {
			tc.BatchSize = v.batch
		}
		batch := samplePositions(seeded(2), tc.BatchSize)
		b.Run(v.name, func(b *testing.B) {
			n, err := New(DefaultConfig(), seeded(1))
			if err != nil {
				b.Fatal(err)
			}
			newTrainer := NewTrainer
			if v.stock {
				newTrainer = NewStockTrainer
			}
			tr, err := newTrainer(n, tc)
			if err != nil {
				b.Fatal(err)
			}
			G.Use(v.blas)
			cpu := processCPU()
			for b.Loop() {
				if _, err := tr.Step(batch); err != nil {
					b.Fatal(err)
				}
			}
			cpu = processCPU() - cpu
			samples := float64(b.N * tc.BatchSize)
			b.ReportMetric(samples/b.Elapsed().Seconds(), "samples/s")
			b.ReportMetric(samples*float64(n.Config().TrainFLOPs())/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			if cpu > 0 {
				// On a loaded machine the CPU time is the steadier figure.
				b.ReportMetric(samples/cpu.Seconds(), "samples/cpu-s")
			}
		})
	}
}

func BenchmarkLegalSoftmax(b *testing.B) {
	// A position of a game's middle and logits spread as a network's.
	p := samplePositions(seeded(2), 30)[29]
	rng := seeded(3)
	logits := make([]float32, env.NumActions)
	for i := range logits {
		logits[i] = float32(rng.NormFloat64() * 3)
	}
	dst := make([]float32, len(p.Legal))
	for b.Loop() {
		if err := graph.LegalSoftmax(dst, logits, graph.SquareOrder, p.Legal); err != nil {
			b.Fatal(err)
		}
	}
}
