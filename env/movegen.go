package env

import "math/bits"

// Move generation: the hot path of every search. Moves are generated from
// reachTable, which already holds, for each square and lifted count modulo
// 10, the distinct target squares; no direction is walked at run time.

// tooTallHeight is the height above which the too-tall rule forces a move.
const tooTallHeight = 4

// MustMove returns the squares (bit s for square s) of the stacks the side
// to move must move from under the too-tall rule: those it controls that
// are taller than 4. The web board marks them.
func (p *Position) MustMove() uint64 { return p.tooTall() }

// tooTall returns the stacks of the side to move that are taller than 4.
func (p *Position) tooTall() uint64 {
	var set uint64
	for own := p.control[p.side]; own != 0; own &= own - 1 {
		if s := trailingZeros(own); p.stacks[s].Height() > tooTallHeight {
			set |= 1 << s
		}
	}
	return set
}

// movable returns the squares the side to move may move from, with a flag
// that says whether the too-tall rule restricts the counts. It returns 0 for
// a finished position. It is on every node's path, so it reads the control
// the position keeps rather than the squares.
func (p *Position) movable(tooTall bool) (from uint64, forced bool) {
	own, opp := p.control[p.side], p.control[p.side^1]
	if own == 0 || opp == 0 {
		return 0, false
	}
	if tooTall {
		if tall := p.tooTall(); tall != 0 {
			return tall, true
		}
	}
	return own, false
}

// LegalMoves appends the legal moves of p to dst and returns the extended
// slice. tooTall selects whether the too-tall rule is in force. A finished
// position has no moves. Moves come in a fixed order: by square, then count,
// then direction.
func (p *Position) LegalMoves(dst []Move, tooTall bool) []Move {
	from, forced := p.movable(tooTall)
	for ; from != 0; from &= from - 1 {
		s := Square(trailingZeros(from))
		kmin, h := p.counts(s, forced)
		for k := kmin; k <= h; k++ {
			rc := &reachTable[s][k%period]
			for i := 0; i < int(rc.n); i++ {
				dst = append(dst, Move{From: s, To: rc.to[i], Count: uint8(k)})
			}
		}
	}
	return dst
}

// MovesTo appends the legal moves of p that land on t to dst and returns
// the extended slice, in the order of [Position.LegalMoves]: the captures
// of one stack, without generating every move (the win searches ask
// which moves take the opponent's stacks).
func (p *Position) MovesTo(dst []Move, t Square, tooTall bool) []Move {
	from, forced := p.movable(tooTall)
	for from &^= 1 << t; from != 0; from &= from - 1 {
		s := Square(trailingZeros(from))
		kmin, h := p.counts(s, forced)
		// The counts that land on t, between kmin and h, in order.
		for ks := countsTo[s][t] & (2<<h - 1) &^ (1<<kmin - 1); ks != 0; ks &= ks - 1 {
			dst = append(dst, Move{From: s, To: t, Count: uint8(bits.TrailingZeros32(ks))})
		}
	}
	return dst
}

// countsTo[s][t] has bit k set when k pieces lifted from s can land on t
// (1 <= k <= maxHeight): firstDirection gathered over the counts, so that
// MovesTo takes a stack's counts in one mask.
var countsTo = func() (c [NumSquares][NumSquares]uint32) {
	for s := range c {
		for t := range c[s] {
			for k := 1; k <= maxHeight; k++ {
				if firstDirection[s][k%period][t] != noDirection {
					c[s][t] |= 1 << k
				}
			}
		}
	}
	return c
}()

// counts returns the fewest and the most pieces the stack on s may lift:
// all of them, or under the too-tall rule (forced) at least those above
// the fourth.
func (p *Position) counts(s Square, forced bool) (lo, hi int) {
	hi = p.stacks[s].Height()
	if forced {
		return hi - tooTallHeight, hi
	}
	return 1, hi
}

// CountMoves returns len(p.LegalMoves(nil, tooTall)) without generating the
// moves; perft's last ply uses it.
func (p *Position) CountMoves(tooTall bool) int {
	from, forced := p.movable(tooTall)
	n := 0
	for ; from != 0; from &= from - 1 {
		s := Square(trailingZeros(from))
		lo, hi := span(s, p.stacks[s].Height(), forced)
		n += hi - lo
	}
	return n
}

// span returns the moves of a stack of height h on s as the range [lo, hi)
// of the moves from s in count order (see movesUpTo and actionsFrom): every
// count, or those the too-tall rule leaves when it forces the stack to move.
func span(s Square, h int, forced bool) (lo, hi int) {
	if forced {
		lo = int(movesUpTo[s][h-tooTallHeight-1])
	}
	return lo, int(movesUpTo[s][h])
}
