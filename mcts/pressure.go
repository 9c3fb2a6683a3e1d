package mcts

import (
	"math"
	"math/bits"

	"github.com/deathstacks/deathstacks/env"
)

// The progress term of Config.PressureUtility. Far ahead in material, a
// player wins only by taking the opponent's last stacks, and a network sure
// of the win, like the material count, values every quiet move the same
// until a capture happens. The term measures how close the side ahead is
// to the next capture: the share of the defender's stacks it attacks (can
// land on next move) and the share of the defender's moves that land on
// squares it attacks, counted with the stacks already taken, so that the
// search prefers the moves that close the net (in the spirit of KataGo's
// score utility and lc0's moves-left head: progress among moves of equal
// value).

// pressureLead is the material lead (env.Position.Material) at which the
// progress term has about three quarters of its weight: the weight is
// tanh(lead/pressureLead)^2, so it is negligible while the game is open.
const pressureLead = 60

// reachExact[s][k%10] has a bit set for every square that k pieces
// lifted from s land on (none for k%10 == 0: they come back to s), and
// reachUpTo[s][h] for every square that a stack of height h on s can land
// on. Heights of 9 and more reach every residue of the axes' period of 10,
// so the tables stop there.
var reachExact, reachUpTo = buildReach()

// reachMaxHeight is the height from which reachUpTo no longer grows.
const reachMaxHeight = 9

func buildReach() (exact, upTo [env.NumSquares][reachMaxHeight + 1]uint64) {
	for s := env.Square(0); s < env.NumSquares; s++ {
		for k := 1; k <= reachMaxHeight; k++ {
			for d := env.North; d <= env.NorthWest; d++ {
				if to := env.Destination(s, d, k); to != s {
					exact[s][k] |= 1 << to
				}
			}
			upTo[s][k] = upTo[s][k-1] | exact[s][k]
		}
	}
	return exact, upTo
}

// tallest is the height above which the too-tall rule binds a stack.
const tallest = 4

// movers returns the stacks of c that may move at c's next turn: all of
// them, or with the too-tall rule only those taller than 4 when there are
// any (tall says so; they must then lift at least h-4 pieces).
func movers(pos *env.Position, c env.Color, tooTall bool) (from uint64, tall bool) {
	from = pos.Controlled(c)
	if !tooTall {
		return from, false
	}
	var t uint64
	for m := from; m != 0; m &= m - 1 {
		s := env.Square(bits.TrailingZeros64(m))
		if pos.At(s).Height() > tallest {
			t |= 1 << s
		}
	}
	if t != 0 {
		return t, true
	}
	return from, false
}

// counts returns the range of pieces a stack of height h may lift.
func counts(h int, tall bool) (lo, hi int) {
	if tall {
		return h - tallest, h
	}
	return 1, h
}

// attacks returns the squares that c can land on at its next turn.
func attacks(pos *env.Position, c env.Color, tooTall bool) uint64 {
	from, tall := movers(pos, c, tooTall)
	var a uint64
	for m := from; m != 0; m &= m - 1 {
		s := env.Square(bits.TrailingZeros64(m))
		h := pos.At(s).Height()
		if !tall {
			a |= reachUpTo[s][min(h, reachMaxHeight)]
			continue
		}
		lo, hi := counts(h, tall)
		for k := lo; k <= hi; k++ {
			a |= reachExact[s][k%10]
		}
	}
	return a
}

// pressure is the side ahead's hold on the defender's stacks in pos, in
// [0, 1]: the mean of the share of the defender's stacks it attacks and
// the share of the defender's moves (by landing square and count) that
// land on a square it attacks.
func pressure(pos *env.Position, ahead env.Color, tooTall bool) float64 {
	def := pos.Controlled(ahead.Other())
	n := bits.OnesCount64(def)
	if n == 0 {
		return 1
	}
	att := attacks(pos, ahead, tooTall)
	from, tall := movers(pos, ahead.Other(), tooTall)
	var moves, caught int
	for m := from; m != 0; m &= m - 1 {
		s := env.Square(bits.TrailingZeros64(m))
		lo, hi := counts(pos.At(s).Height(), tall)
		for k := lo; k <= hi; k++ {
			to := reachExact[s][k%10]
			moves += bits.OnesCount64(to)
			caught += bits.OnesCount64(to & att)
		}
	}
	share := float64(bits.OnesCount64(def&att)) / float64(n)
	if moves == 0 {
		return share
	}
	return (share + float64(caught)/float64(moves)) / 2
}

// pressureStacks is the most stacks a defender may control for the
// progress term to count: the endings where the win search (which needs
// at least one attacking move per stack) can come within reach.
const pressureStacks = 6

// progress is the side ahead's progress toward taking the defender's last
// stack, in [0, 1] for a defender of at most pressureStacks stacks: the
// stacks it has taken below pressureStacks plus its pressure on the rest,
// over pressureStacks. A capture never lowers it (the pressure it may lose
// is worth one stack at most), so it orders the quiet moves without
// holding the side ahead back from taking material.
func progress(pos *env.Position, ahead env.Color, tooTall bool) float64 {
	n := bits.OnesCount64(pos.Controlled(ahead.Other()))
	if n > pressureStacks {
		return 0
	}
	return (float64(pressureStacks-n) + pressure(pos, ahead, tooTall)) / pressureStacks
}

// pressureValue adds the progress term to a leaf value v for the side to
// move in pos: with weight w*tanh(lead/pressureLead)^2 for the side ahead
// (and the opposite for the other side), within [-1, 1]. Level material
// leaves v alone.
func pressureValue(v float32, pos *env.Position, w float64, tooTall bool) float32 {
	lead := pos.Material(pos.SideToMove())
	if lead == 0 || lead >= env.WinMaterial || lead <= -env.WinMaterial {
		return v
	}
	side, sign := pos.SideToMove(), 1.0
	if lead < 0 {
		side, sign = side.Other(), -1.0
	}
	g := math.Tanh(float64(lead) / pressureLead)
	u := float64(v) + sign*w*g*g*progress(pos, side, tooTall)
	return float32(max(-1, min(1, u)))
}
