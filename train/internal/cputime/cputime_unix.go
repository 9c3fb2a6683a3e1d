//go:build unix

package cputime

import "syscall"

// Process is the CPU time, user and system, that the process has
// used so far on all its threads: the work a run has had from the machine,
// which neither a stopped process nor other processes' load adds to as
// they add to wall time.
func Process() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
