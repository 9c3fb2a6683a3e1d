package model

import (
	"runtime"
	"sync"
	"time"
)

// PeakGFLOPS measures the machine: it runs a loop of independent fused
// multiply-adds (AVX2 when the CPU has it, whatever kernels are in use;
// plain Go otherwise) on GOMAXPROCS goroutines for about d and returns that
// number of cores and the billions of floating-point operations per
// second they reached together. The network's share of this peak says how
// much of the hardware inference uses.
func PeakGFLOPS(d time.Duration) (cores int, gflops float64) {
	loop, flopsPerIter := fmaLoopGo, 24.0
	if haveAVX2FMA {
		loop, flopsPerIter = fmaLoop, 192
	}
	const chunk = 1 << 16 // iterations between clock reads
	cores = runtime.GOMAXPROCS(0)
	counts := make([]int, cores)
	sums := make([]float32, cores) // keeps the portable loop's work alive
	var wg sync.WaitGroup
	start := time.Now()
	for c := range cores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Since(start) < d {
				sums[c] += loop(chunk)
				counts[c]++
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	total := 0
	for _, n := range counts {
		total += n
	}
	return cores, float64(total) * chunk * flopsPerIter / elapsed / 1e9
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
