package mcts

import (
	"math/bits"

	"github.com/deathstacks/deathstacks/env"
)

// winningMove returns a move of moves, the legal moves of p, after which
// the opponent controls no stack. Only a side whose opponent controls a
// single stack can have one: a move captures at most its target and
// uncovers at most what it leaves behind, so this is quick to rule out.
func winningMove(p *env.Position, moves []env.Move) (env.Move, bool) {
	opp := p.SideToMove().Other()
	theirs := p.Controlled(opp)
	if bits.OnesCount64(theirs) != 1 {
		return env.Move{}, false
	}
	target := env.Square(bits.TrailingZeros64(theirs))
	for _, m := range moves {
		if m.To != target {
			continue
		}
		src := p.At(m.From)
		if int(m.Count) == src.Height() || src.At(int(m.Count)) != opp {
			return m, true
		}
	}
	return env.Move{}, false
}
