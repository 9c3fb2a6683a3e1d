package env

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
	own := p.side
	for s, st := range p.stacks {
		h := st.Height()
		if h == 0 {
			continue
		}
		for d := 0; d < h && d < observedDepth; d++ {
			plane := 2 * d
			if st.At(d) != own {
				plane++
			}
			dst[plane*NumSquares+s] = 1
		}
		if h > observedDepth {
			below := st
			below, _ = below.split(observedDepth)
			dst[planeOwnBelow*NumSquares+s] = float32(below.count(own)) / piecesPerSide
			dst[planeOppBelow*NumSquares+s] = float32(below.count(own.Other())) / piecesPerSide
		}
		dst[planeHeight*NumSquares+s] = float32(h) / piecesPerSide
		if h > tooTallHeight && st.Top() != own {
			dst[planeOppTall*NumSquares+s] = 1
		}
	}
	if rules.TooTall {
		for set := p.tooTall(); set != 0; set &= set - 1 {
			dst[planeMustMove*NumSquares+trailingZeros(set)] = 1
		}
	}
	var rep, progress, red, tooTall float32
	if rules.RepetitionLimit > 1 && repetitions > 1 {
		rep = min(1, float32(repetitions-1)/float32(rules.RepetitionLimit-1))
	}
	if rules.MaxPlies > 0 {
		progress = min(1, float32(p.ply)/float32(rules.MaxPlies))
	}
	if own == Red {
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
	row := dst[plane*NumSquares : (plane+1)*NumSquares]
	for i := range row {
		row[i] = v
	}
}
