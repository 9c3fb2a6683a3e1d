package mcts

import (
	"math"
	"math/bits"

	"github.com/deathstacks/deathstacks/env"
)

// The one-ply heuristic shared by the greedy player, the alpha-beta leaves
// and the cut-off of the UCT rollouts. A position is won when the opponent
// controls no stack, so what matters is how much of the board each side
// controls: every piece counts for the player on top of its stack, whatever
// its own colour, because one move can carry it away. The number of stacks
// controlled is a smaller term: a side with few stacks is close to being
// wiped out, and each extra stack is one more piece of the board to defend.
const (
	// pieceWeight scores each piece in a stack the player controls.
	pieceWeight = 10
	// stackWeight scores each stack the player controls.
	stackWeight = 5
	// WinScore is the heuristic score of a won position; alpha-beta subtracts
	// the distance in plies so that faster wins score higher.
	WinScore = 1_000_000
	// heuristicScale is the score that squashValue maps to tanh(1), about
	// 0.76: a lead of five pieces under control.
	heuristicScale = 50
)

// Heuristic returns the one-ply score of p for player c: 10 points for each
// piece in a stack c controls and 5 for each such stack, minus the same for
// the opponent; WinScore (or -WinScore) when one side controls every stack,
// and 0 for an empty board.
func Heuristic(p *env.Position, c env.Color) int {
	var pieces, stacks [2]int
	for s := env.Square(0); s < env.NumSquares; s++ {
		st := p.At(s)
		if st.Empty() {
			continue
		}
		top := st.Top()
		pieces[top] += st.Height()
		stacks[top]++
	}
	o := c.Other()
	switch {
	case stacks[c] == 0 && stacks[o] == 0:
		return 0
	case stacks[o] == 0:
		return WinScore
	case stacks[c] == 0:
		return -WinScore
	}
	return pieceWeight*(pieces[c]-pieces[o]) + stackWeight*(stacks[c]-stacks[o])
}

// squashValue maps a heuristic score to an expected outcome in (-1, 1).
func squashValue(score int) float64 {
	return math.Tanh(float64(score) / heuristicScale)
}

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
