//go:build !unix

package model

import "time"

// processCPU is unknown here: benchmarks report no per-CPU figures.
func processCPU() time.Duration { return 0 }
