package env

import "math/bits"

// The observation is NumPlanes planes of 6x6 float32 values, plane-major
// (index = plane*NumSquares + square, square as in [Square]: a1=0 .. f6=35).
// It is seen from the side to move: "own" is the side to move, "opponent"
// the other; the board itself is not turned.
//
//	planes 0..11  for depth d = 0..5 from the top: plane 2d is 1 where the
//	              piece at depth d is own, plane 2d+1 where it is the opponent's
//	plane 12      own pieces below depth 5, divided by 12
//	plane 13      opponent pieces below depth 5, divided by 12
//	plane 14      stack height divided by 12
//	plane 15      1 on the stacks the too-tall rule forces the side to move to move
//	plane 16      1 on opponent-controlled stacks taller than 4
//	plane 17      (occurrences of this position so far - 1) / (repetition limit - 1),
//	              everywhere: 0 the first time, 1 when one more would end the game
//	plane 18      plies played / move limit, everywhere
//	plane 19      1 everywhere when Red is to move
//	plane 20      1 everywhere when the too-tall rule is in force
const (
	// observedDepth is how many pieces from the top of each stack the
	// observation shows one by one.
	observedDepth = 6
	// NumPlanes is the number of 6x6 planes in an observation.
	NumPlanes = 2*observedDepth + 9
	// ObservationSize is the number of float32 values in an observation.
	ObservationSize = NumPlanes * NumSquares
	// EncodingVersion changes whenever the observation or action encoding
	// changes, so that saved networks for another encoding are refused.
	// Package train's TestFixturesFollowTheEncoding catches a change
	// without it; the procedure after one is train/internal/fixtures.
	EncodingVersion = 1
)

// Plane indices of the summary planes.
const (
	planeOwnBelow = 2*observedDepth + iota
	planeOppBelow
	planeHeight
	planeMustMove
	planeOppTall
	planeRepetition
	planeProgress
	planeRedToMove
	planeTooTallRule
)

// EncodeObservation writes the observation of p into dst, which must hold
// ObservationSize values. repetitions is how many times p's position has
// occurred in the game so far, counting this time (1 for a new position).
func EncodeObservation(dst []float32, p *Position, rules Rules, repetitions int) {
	dst = dst[:ObservationSize]
	clear(dst)
	// Flipped by opp, a stack's colour bits are 1 for the opponent's pieces.
	opp := uint32(0)
	if p.side == Blue {
		opp = stackColorMask
	}
	for s := range p.stacks {
		st := p.stacks[s]
		h := st.Height()
		if h == 0 {
			continue
		}
		theirs := st.colors() ^ opp
		// The pieces from the top down, from bit 31 down.
		top := theirs << (uint(32-h) & 31)
		end := s + 2*NumSquares*min(h, observedDepth)
		for i := s; i < end; i += 2 * NumSquares {
			dst[i+int(top>>31*NumSquares)] = 1 // plane 2d, or 2d+1 for theirs
			top <<= 1
		}
		dst[planeHeight*NumSquares+s] = twelfths[h]
		if below := h - observedDepth; below > 0 {
			n := bits.OnesCount32(theirs & (1<<(uint(below)&31) - 1))
			dst[planeOwnBelow*NumSquares+s] = twelfths[below-n]
			dst[planeOppBelow*NumSquares+s] = twelfths[n]
		}
		if h > tooTallHeight {
			switch {
			case theirs>>(uint(h-1)&31)&1 != 0:
				dst[planeOppTall*NumSquares+s] = 1
			case rules.TooTall:
				dst[planeMustMove*NumSquares+s] = 1
			}
		}
	}
	var rep, progress, red, tooTall float32
	if rules.RepetitionLimit > 1 && repetitions > 1 {
		rep = min(1, float32(repetitions-1)/float32(rules.RepetitionLimit-1))
	}
	if rules.MaxPlies > 0 {
		progress = min(1, float32(p.ply)/float32(rules.MaxPlies))
	}
	if p.side == Red {
		red = 1
	}
	if rules.TooTall {
		tooTall = 1
	}
	fillPlane(dst, planeRepetition, rep)
	fillPlane(dst, planeProgress, progress)
	fillPlane(dst, planeRedToMove, red)
	fillPlane(dst, planeTooTallRule, tooTall)
}

func fillPlane(dst []float32, plane int, v float32) {
	if v == 0 {
		return
	}
	row := (*[NumSquares]float32)(dst[plane*NumSquares:])
	for i := range row {
		row[i] = v
	}
}

// twelfths[n] is n/12, the observation's value for n pieces.
var twelfths = func() (t [maxHeight + 1]float32) {
	for n := range t {
		t[n] = float32(n) / piecesPerSide
	}
	return t
}()
