package kernel

import (
	"runtime"
	"sync"
	"time"
)

// PeakGFLOPS measures the machine: it runs a loop of independent fused
// multiply-adds (AVX-512 or AVX2, the widest the CPU has, whatever
// kernels are in use; plain Go otherwise) on GOMAXPROCS goroutines for about d and returns that
// number of cores and the billions of floating-point operations per
// second they reach together. Each goroutine times short chunks of the
// loop and keeps its fastest, and the cores' bests add up: other processes
// sharing the cores lower the figure as little as possible (a window of
// wall time in which every core is free is rare on a loaded machine), so
// it is the hardware's peak, which the network's share is measured
// against. It assumes the cores do not share FMA units (no SMT siblings).
func PeakGFLOPS(d time.Duration) (cores int, gflops float64) {
	loop, flopsPerIter := fmaLoopGo, 24.0
	switch {
	case haveAVX512:
		loop, flopsPerIter = fmaLoopWide, 384
	case haveAVX2FMA:
		loop, flopsPerIter = fmaLoop, 192
	}
	const chunk = 1 << 14 // iterations per timed chunk: tens of microseconds
	cores = runtime.GOMAXPROCS(0)
	best := make([]float64, cores) // per goroutine, iterations per second
	sums := make([]float32, cores) // keeps the portable loop's work alive
	var wg sync.WaitGroup
	start := time.Now()
	for c := range cores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Since(start) < d {
				t := time.Now()
				sums[c] += loop(chunk)
				best[c] = max(best[c], chunk/time.Since(t).Seconds())
			}
		}()
	}
	wg.Wait()
	total := 0.0
	for _, r := range best {
		total += r
	}
	return cores, total * flopsPerIter / 1e9
}

// fmaLoopGo is the portable peak loop: 12 independent multiply-adds (24
// operations) per iteration. It returns its sum so that the compiler keeps
// the work.
func fmaLoopGo(n int) float32 {
	var s [12]float32
	x, y := float32(0.999), float32(1e-3)
	for range n {
		for i := range s {
			s[i] = s[i]*x + y
		}
	}
	var t float32
	for _, v := range s {
		t += v
	}
	return t
}
