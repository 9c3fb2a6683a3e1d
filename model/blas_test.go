package model

import (
	"sync/atomic"
	"testing"

	"github.com/deathstacks/deathstacks/model/internal/kernel"
	"gonum.org/v1/gonum/blas"
	G "gorgonia.org/gorgonia"
)

// countingBLAS counts the float32 BLAS calls that gorgonia and tensor
// could make for this package's graphs.
type countingBLAS struct {
	kernel.BLAS
	gemm, other *atomic.Int64
}

func (c countingBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, cm []float32, ldc int) {
	c.gemm.Add(1)
	c.BLAS.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, cm, ldc)
}

func (c countingBLAS) Sgemv(tA blas.Transpose, m, n int, alpha float32, a []float32, lda int, x []float32, incX int, beta float32, y []float32, incY int) {
	c.other.Add(1)
	c.BLAS.Sgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
}

func (c countingBLAS) Sger(m, n int, alpha float32, x []float32, incX int, y []float32, incY int, a []float32, lda int) {
	c.other.Add(1)
	c.BLAS.Sger(m, n, alpha, x, incX, y, incY, a, lda)
}

func (c countingBLAS) Sdot(n int, x []float32, incX int, y []float32, incY int) float32 {
	c.other.Add(1)
	return c.BLAS.Sdot(n, x, incX, y, incY)
}

func (c countingBLAS) Saxpy(n int, alpha float32, x []float32, incX int, y []float32, incY int) {
	c.other.Add(1)
	c.BLAS.Saxpy(n, alpha, x, incX, y, incY)
}

func (c countingBLAS) Sscal(n int, alpha float32, x []float32, incX int) {
	c.other.Add(1)
	c.BLAS.Sscal(n, alpha, x, incX)
}

// TestGorgoniaCallsOnlySgemm checks which BLAS entry points the graphs
// reach: Sgemm alone, so a faster Sgemm speeds up all of their matrix
// products (the stock graphs' and the auxiliary heads'). The fused
// graphs of a network without auxiliary heads reach none: their ops call
// the kernels themselves.
func TestGorgoniaCallsOnlySgemm(t *testing.T) {
	var gemm, other atomic.Int64
	defer G.Use(G.WhichBLAS())
	G.Use(countingBLAS{gemm: &gemm, other: &other})
	n := randomNetwork(t, tinyConfig, 1)
	samples := samplePositions(seeded(2), 4)
	tc := DefaultTrainConfig()
	tc.BatchSize = 4
	tr, err := NewTrainer(n, tc)
	if err != nil {
		t.Fatal(err)
	}
	stock, err := NewStockTrainer(n, tc)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		name string
		gemm bool // whether Sgemm calls are expected
		run  func() error
	}{
		{"fused forward", false, func() error {
			obs, legal, priors, values := evalArgs(samples)
			return n.Evaluate(obs, legal, priors, values)
		}},
		{"stock forward", true, func() error {
			obs, legal, priors, values := evalArgs(samples)
			return n.EvaluateStock(obs, legal, priors, values)
		}},
		{"fused training step", false, func() error { _, err := tr.Step(samples); return err }},
		{"stock training step", true, func() error { _, err := stock.Step(samples); return err }},
	} {
		t.Run(step.name, func(t *testing.T) {
			gemm.Store(0)
			other.Store(0)
			if err := step.run(); err != nil {
				t.Fatal(err)
			}
			if (gemm.Load() > 0) != step.gemm || other.Load() != 0 {
				t.Errorf("%d Sgemm calls (want some: %v), %d other float32 BLAS calls (want none)", gemm.Load(), step.gemm, other.Load())
			}
		})
	}
}
