package report

import (
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/builtin"
)

// DefaultAnchor returns the player whose Elo a report fixes at 0: the
// first that plays the anchor (az:model=anchor, the fixed point of the
// project's scale: see package train/builtin), or else the first whose
// spec is "random" (the natural zero of a scale that should mean the same
// from one evaluation to the next), or else the first.
func DefaultAnchor(contenders []arena.Contender) string {
	for _, c := range contenders {
		if IsAnchor(c.Spec) {
			return c.Name
		}
	}
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

// IsAnchor reports whether a player spec plays the anchor.
func IsAnchor(spec string) bool {
	s, err := players.ParseSpec(spec)
	return err == nil && s.Kind == players.KindAZ && s.Model() == builtin.AnchorModel
}

// AnchorSpec is the anchor as it plays at the fixed point of the
// project's Elo scale: at 100 simulations a move, with no time limit (the
// file's own second a move does not apply), as the ladder's snapshots and
// the in-training evaluation's network play by default.
const AnchorSpec = "az:model=" + builtin.AnchorModel + ",sims=100,time=0s"
