//go:build unix

package cputime

import "testing"

// The CPU time grows with work and never falls.
func TestProcessGrows(t *testing.T) {
	before := Process()
	sum := 0
	for i := range 50_000_000 {
		sum += i % 7
	}
	after := Process()
	if before <= 0 || after <= before {
		t.Errorf("CPU time %v s, then %v s after some work (%d): want it positive and growing", before, after, sum)
	}
}
