package binding

import (
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
)

// FuzzStrings feeds the library's string inputs arbitrary bytes: errors
// are fine, panics are not.
func FuzzStrings(f *testing.F) {
	for _, s := range []string{env.StartFEN, "a6-2-a4", "", "rr,rr r", "alphabeta:depth=1", "x\x00y", "a6-2-a4 b1-1-b2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = LegalMoves(s, true)
		_, _ = RenderFEN(s)
		_, _ = ActionOf(s)
		_, _ = PositionOf(s, s).Game(env.DefaultRules())
		_, _ = PositionOf(env.StartFEN, s).Game(env.DefaultRules())
		if !strings.HasPrefix(s, "az") && !strings.HasPrefix(s, "mcts") {
			_, _, _ = newPlayerOf(s, 1, testModels.Load)
		}
	})
}
