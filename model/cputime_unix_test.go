//go:build unix

package model

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used so far, so that a
// benchmark on a shared machine can report work per CPU-second, which
// other processes do not change as much as they change wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
