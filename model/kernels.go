package model

import (
	"time"

	"github.com/deathstacks/deathstacks/model/internal/kernel"
)

// Kernels names the kernels in use: "avx512" (the microkernel two tiles at
// a time in AVX-512, the rest AVX2; DEATHSTACKS_NOAVX512=1 at start-up
// keeps AVX2), "avx2" (AVX2 and FMA assembly) or "go" (portable Go, on
// other CPUs or with DEATHSTACKS_NOASM=1 at start-up). All give the same
// results up to rounding; AVX-512 and AVX2 the same bits. The assembly
// flushes subnormal operands and results to zero, which an Intel core
// otherwise computes tens of times slower.
func Kernels() string { return kernel.Name() }

// PeakGFLOPS measures the machine's fused multiply-add peak on GOMAXPROCS
// cores for about d, which "deathstacks bench nn" compares the network's
// speed with; it returns that number of cores and their GFLOP/s together.
func PeakGFLOPS(d time.Duration) (cores int, gflops float64) { return kernel.PeakGFLOPS(d) }
