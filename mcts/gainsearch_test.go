package mcts

import (
	"testing"

	"github.com/deathstacks/deathstacks/env"
)

func TestGainSearch(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fen    string
		plies  int
		budget int64
		want   string // the move, "" for none
	}{
		// a4-2-a6 takes a6's single, and f6's cannot take back.
		{"takes a stack it can hold", "b,,,,,b/,,,,,/rr,,,,,/,,,,,/,,,,,/,,,,,rrrr r", 2, 1 << 20, "a4-2-a6"},
		// From d1 and f1 nothing reaches a6 or f6 within two plies.
		{"no gain out of reach", "b,,,,,b/,,,,,/,,,,,/,,,,,/,,,,,/,,,rr,,rrrr r", 2, 1 << 20, ""},
		{"a budget cut short gains nothing", "b,,,,,b/,,,,,/rr,,,,,/,,,,,/,,,,,/,,,,,rrrr r", 2, 10, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pos := mustFEN(t, tc.fen)
			var g gainSearch
			m, ok, nodes := g.find(&pos, env.DefaultRules(), tc.plies, tc.budget)
			got := ""
			if ok {
				got = m.String()
			}
			if got != tc.want {
				t.Errorf("move %q (%v) in %d positions, want %q", got, ok, nodes, tc.want)
			}
		})
	}
}
