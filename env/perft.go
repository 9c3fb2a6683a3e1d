package env

import "math/bits"

// trailingZeros returns the index of the lowest set bit.
func trailingZeros(x uint64) int { return bits.TrailingZeros64(x) }

// Perft counts the move sequences of exactly depth plies from p, as chess
// perft does: a finished position has no moves, and draws by repetition or
// the move limit are ignored. tooTall selects the too-tall rule.
func Perft(p Position, depth int, tooTall bool) uint64 {
	switch {
	case depth <= 0:
		return 1
	case depth == 1:
		return uint64(p.CountMoves(tooTall))
	}
	var buf [256]Move
	moves := p.LegalMoves(buf[:0], tooTall)
	var n uint64
	for _, m := range moves {
		child := p
		child.Apply(m)
		n += Perft(child, depth-1, tooTall)
	}
	return n
}

// DivideCount is one line of [Divide]: a legal move and the number of
// sequences of the remaining depth after it.
type DivideCount struct {
	Move  Move
	Nodes uint64
}

// Divide returns, for each legal move of p, the perft count of depth-1
// plies after it; their sum is Perft(p, depth, tooTall).
func Divide(p Position, depth int, tooTall bool) []DivideCount {
	if depth < 1 {
		return nil
	}
	var out []DivideCount
	for _, m := range p.LegalMoves(nil, tooTall) {
		child := p
		child.Apply(m)
		out = append(out, DivideCount{Move: m, Nodes: Perft(child, depth-1, tooTall)})
	}
	return out
}
