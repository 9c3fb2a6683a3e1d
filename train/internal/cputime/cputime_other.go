//go:build !unix

package cputime

// Process is 0 where the process's CPU time is not read: the run
// records no CPU time there.
func Process() float64 { return 0 }
