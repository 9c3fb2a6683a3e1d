package players

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
)

// RandomPlayer plays a uniformly random legal move.
type RandomPlayer struct {
	rng *rand.Rand
}

// NewRandomPlayer returns a random player with its own seed.
func NewRandomPlayer(seed uint64) *RandomPlayer { return &RandomPlayer{rng: newRand(seed)} }

// Choose implements [mcts.Player].
func (p *RandomPlayer) Choose(g *env.Game) (mcts.Decision, error) {
	return onePly(g, func(_ env.Position, moves []env.Move) mcts.Decision {
		m := moves[p.rng.IntN(len(moves))]
		return mcts.Decision{Move: m, Value: math.NaN(), PV: []env.Move{m}}
	})
}

// onePly is the Choose of a player that looks no further than the legal
// moves: pick's decision among them, or an error for a finished game.
func onePly(g *env.Game, pick func(pos env.Position, moves []env.Move) mcts.Decision) (mcts.Decision, error) {
	if err := finished(g); err != nil {
		return mcts.Decision{}, err
	}
	return pick(g.Position(), g.LegalMoves(nil)), nil
}

// finished returns an error for a finished game, which has no move to
// choose.
func finished(g *env.Game) error {
	if st := g.Status(); st.Over() {
		return fmt.Errorf("choose: the game is over (%v)", st)
	}
	return nil
}

// GreedyPlayer looks one ply ahead: it plays a move that wins at once if
// there is one, and otherwise the move after which [env.Position.Material] is best for
// it, drawing among equal moves with its own seed.
type GreedyPlayer struct {
	rng *rand.Rand
}

// NewGreedyPlayer returns a greedy player with its own seed.
func NewGreedyPlayer(seed uint64) *GreedyPlayer { return &GreedyPlayer{rng: newRand(seed)} }

// Choose implements [mcts.Player]. The decision's Score is the material count after
// the move (at Depth 1) and Nodes the number of moves tried.
func (p *GreedyPlayer) Choose(g *env.Game) (mcts.Decision, error) { return onePly(g, p.best) }

func (p *GreedyPlayer) best(pos env.Position, moves []env.Move) mcts.Decision {
	me := pos.SideToMove()
	best, bestScore, ties := moves[0], math.MinInt, 0
	for _, m := range moves {
		child := pos
		child.Apply(m)
		score := child.Material(me)
		switch {
		case score > bestScore:
			best, bestScore, ties = m, score, 1
		case score == bestScore:
			// Reservoir sampling: each of the equal moves ends up chosen
			// with the same probability.
			ties++
			if p.rng.IntN(ties) == 0 {
				best = m
			}
		}
	}
	return mcts.Decision{Move: best, Value: env.MaterialValue(bestScore), PV: []env.Move{best}, Depth: 1, Score: bestScore, Nodes: int64(len(moves))}
}
