package main

import (
	"regexp"
	"testing"
)

func TestBenchMCTS(t *testing.T) {
	out, errOut, code := runBotCLI("", "bench", "mcts", "--seconds", "0.05", "--sims", "50", "--depth", "2")
	if code != 0 {
		t.Fatalf("status %d: %s", code, errOut)
	}
	re := regexp.MustCompile(`^puct sims/s=\d+\nuct-rollout sims/s=\d+\nalphabeta nodes/s=\d+\n$`)
	if !re.MatchString(out) {
		t.Errorf("output %q", out)
	}
	if _, _, code := runBotCLI("", "bench", "nothing"); code != 2 {
		t.Errorf("bench nothing: status %d, want 2", code)
	}
}
