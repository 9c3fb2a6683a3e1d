package mcts

import (
	"math/bits"

	"github.com/deathstacks/deathstacks/env"
)

// winningMove returns a legal move of p (tooTall: the too-tall rule in
// force) after which the opponent controls no stack. Only a side whose
// opponent controls a single stack can have one: a move captures at most
// its target and uncovers at most what it leaves behind, so this is quick
// to rule out, and only the moves onto that stack are generated.
func winningMove(p *env.Position, tooTall bool) (env.Move, bool) {
	opp := p.SideToMove().Other()
	theirs := p.Controlled(opp)
	if bits.OnesCount64(theirs) != 1 {
		return env.Move{}, false
	}
	var buf [64]env.Move
	for _, m := range p.MovesTo(buf[:0], env.Square(bits.TrailingZeros64(theirs)), tooTall) {
		if p.ControlledAfter(m, opp) == 0 {
			return m, true
		}
	}
	return env.Move{}, false
}
