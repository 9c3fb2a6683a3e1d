package env

// Box describes the observation space, as Gymnasium's Box: arrays of Shape
// (plane-major, flattened in an observation) whose values of plane i lie
// in [Low[i], High[i]]. The C library reads its bounds; Box.Contains is for
// Go programs that check observations, as Gymnasium's contains.
type Box struct {
	// Shape is NumPlanes, BoardSize, BoardSize: planes of ranks of files.
	Shape []int
	// DType names the element type, "float32".
	DType string
	// Low and High bound the values of each plane, indexed by plane.
	Low, High []float32
}

// Discrete describes the action space, as Gymnasium's Discrete: the
// actions 0..N-1, of which a position's legal-action mask (see
// [Env.LegalMask]) allows a few. Like [Env] it is for Go programs using the
// gym-style interface.
type Discrete struct {
	N int
}

// ObservationSpace returns the space of the observations of
// [EncodeObservation]: NumPlanes x 6 x 6 float32 values. Every plane lies
// in [0, 1] except the stack heights (plane 14, height / 12), which reach 2
// on a stack of all 24 pieces.
func ObservationSpace() Box {
	b := Box{
		Shape: []int{NumPlanes, BoardSize, BoardSize},
		DType: "float32",
		Low:   make([]float32, NumPlanes),
		High:  make([]float32, NumPlanes),
	}
	for i := range b.High {
		b.High[i] = 1
	}
	b.High[planeHeight] = float32(maxHeight) / piecesPerSide
	return b
}

// Contains reports whether obs has the space's size and every value lies
// within its plane's bounds.
func (b Box) Contains(obs []float32) bool {
	size := 1
	for _, n := range b.Shape {
		size *= n
	}
	if len(obs) != size || len(b.Low) == 0 || size%len(b.Low) != 0 || len(b.High) != len(b.Low) {
		return false
	}
	per := size / len(b.Low)
	for i, v := range obs {
		if plane := i / per; !(v >= b.Low[plane] && v <= b.High[plane]) { // also false for NaN
			return false
		}
	}
	return true
}

// ActionSpace returns the fixed action space: [NumActions] indices (see
// [Action]).
func ActionSpace() Discrete { return Discrete{N: NumActions} }

// Contains reports whether a is an action of the space.
func (d Discrete) Contains(a Action) bool { return a >= 0 && int(a) < d.N }
