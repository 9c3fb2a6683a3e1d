package report

import (
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/train/arena"
)

// DefaultAnchor returns the player whose Elo a report fixes at 0: the
// first whose spec is "random" (the natural zero of a scale that should
// mean the same from one evaluation to the next), or else the first.
func DefaultAnchor(contenders []arena.Contender) string {
	for _, c := range contenders {
		if c.Spec == players.KindRandom {
			return c.Name
		}
	}
	if len(contenders) == 0 {
		return ""
	}
	return contenders[0].Name
}
