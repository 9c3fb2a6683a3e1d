package env

import "math"

// The material count of a position, shared by the baseline players (the
// greedy player, the alpha-beta leaves, the cut-off of the UCT rollouts)
// and by self-play's adjudication of games that end without a winner. A
// position is won when the opponent controls no stack, so what matters is
// how much of the board each side controls: every piece counts for the
// player on top of its stack, whatever its own colour, because one move can
// carry it away. The number of stacks controlled is a smaller term: a side
// with few stacks is close to being wiped out, and each extra stack is one
// more piece of the board to defend.
const (
	// PieceMaterial scores each piece in a stack the player controls.
	PieceMaterial = 10
	// StackMaterial scores each stack the player controls.
	StackMaterial = 5
	// WinMaterial is the material score of a won position; alpha-beta
	// subtracts the distance in plies so that faster wins score higher.
	WinMaterial = 1_000_000
	// materialScale is the score that MaterialValue maps to tanh(1), about
	// 0.76: a lead of five pieces under control.
	materialScale = 50
)

// Material returns the material score of p for player c: PieceMaterial for
// each piece in a stack c controls and StackMaterial for each such stack,
// minus the same for the opponent; WinMaterial (or -WinMaterial) when one
// side controls every stack, and 0 for an empty board.
func (p *Position) Material(c Color) int { return p.MaterialUpTo(c, maxHeight) }

// MaterialUpTo is Material with at most height pieces of each stack
// counted (height 1: the stacks alone, at PieceMaterial+StackMaterial
// each). A stack taller than 4 moves at least all but 4 of its pieces
// together (the too-tall rule), so a lead held in one tall stack is a
// smaller lead than its pieces say: MaterialUpTo(c, 4) counts such a
// stack as one of 4.
func (p *Position) MaterialUpTo(c Color, height int) int {
	var pieces, stacks [2]int
	for s := Square(0); s < NumSquares; s++ {
		st := p.At(s)
		if st.Empty() {
			continue
		}
		top := st.Top()
		pieces[top] += min(st.Height(), height)
		stacks[top]++
	}
	o := c.Other()
	switch {
	case stacks[c] == 0 && stacks[o] == 0:
		return 0
	case stacks[o] == 0:
		return WinMaterial
	case stacks[c] == 0:
		return -WinMaterial
	}
	return PieceMaterial*(pieces[c]-pieces[o]) + StackMaterial*(stacks[c]-stacks[o])
}

// MaterialValue maps a material score to an expected outcome in (-1, 1),
// tanh(score/50): the value a player without a network gives a position.
func MaterialValue(score int) float64 {
	return math.Tanh(float64(score) / materialScale)
}
