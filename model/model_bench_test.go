package model

import (
	"fmt"
	"sync"
	"testing"

	"github.com/deathstacks/deathstacks/env"
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

func BenchmarkServer(b *testing.B) {
	n, err := New(DefaultConfig(), seeded(1))
	if err != nil {
		b.Fatal(err)
	}
	samples := samplePositions(seeded(2), 64)
	s, err := NewServer(n, DefaultServerConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const clients = 64
	calls := make(chan struct{})
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			obs, legal, priors, values := evalArgs(samples[c : c+1])
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
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "evals/s")
}

// BenchmarkTrainStep compares gonum's Sgemm with this package's under
// the same training graph, side by side.
func BenchmarkTrainStep(b *testing.B) {
	n, err := New(DefaultConfig(), seeded(1))
	if err != nil {
		b.Fatal(err)
	}
	tc := DefaultTrainConfig()
	tr, err := NewTrainer(n, tc)
	if err != nil {
		b.Fatal(err)
	}
	batch := samplePositions(seeded(2), tc.BatchSize)
	defer G.Use(G.WhichBLAS())
	for _, impl := range []struct {
		name string
		blas G.BLAS
	}{{"gonum", gonum.Implementation{}}, {"sgemm", kernel.BLAS{}}} {
		b.Run(impl.name, func(b *testing.B) {
			G.Use(impl.blas)
			for b.Loop() {
				if _, err := tr.Step(batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*tc.BatchSize)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

func BenchmarkLegalSoftmax(b *testing.B) {
	p := samplePositions(seeded(2), 1)[0]
	logits := make([]float32, env.NumActions)
	dst := make([]float32, len(p.Legal))
	for b.Loop() {
		if err := legalSoftmax(dst, logits, p.Legal); err != nil {
			b.Fatal(err)
		}
	}
}
