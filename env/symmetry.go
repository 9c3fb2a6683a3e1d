package env

import "fmt"

// Symmetry is one of the eight symmetries of the square board (the dihedral
// group): it maps squares, directions, moves, positions, observations and
// action indices, and the rules commute with it. Colours are not swapped.
//
// A symmetry is three bits applied in this order: bit 2 transposes (file and
// rank swap), bit 0 then mirrors the files (a<->f), bit 1 mirrors the ranks
// (1<->6). Identity is 0.
//
// Training augments its samples with Observation and Action; Square,
// Direction, Move, Position, Policy, Then and Inverse complete the group for
// Go programs that augment their own data (see the package doc).
type Symmetry uint8

// NumSymmetries is the number of symmetries of the square.
const NumSymmetries = 8

// Identity maps everything to itself.
const Identity Symmetry = 0

var (
	symSquare   [NumSymmetries][NumSquares]Square
	symDir      [NumSymmetries][numDirections]Direction
	symAction   [NumSymmetries][NumActions]Action
	symCompose  [NumSymmetries][NumSymmetries]Symmetry
	symInverse  [NumSymmetries]Symmetry
	symbolNames = [NumSymmetries]string{"identity", "mirror-files", "mirror-ranks", "rotate-180", "transpose", "rotate-90", "rotate-270", "anti-transpose"}
)

// apply maps a coordinate pair; with offset 5 it maps squares, with offset 0
// and values in {-1,0,1} direction steps.
func (y Symmetry) apply(a, b, offset int) (int, int) {
	if y&4 != 0 {
		a, b = b, a
	}
	if y&1 != 0 {
		a = offset - a
	}
	if y&2 != 0 {
		b = offset - b
	}
	return a, b
}

func init() {
	for y := Symmetry(0); y < NumSymmetries; y++ {
		for s := Square(0); s < NumSquares; s++ {
			f, r := y.apply(s.file(), s.rank(), BoardSize-1)
			symSquare[y][s] = newSquare(f, r)
		}
		for d := Direction(0); d < numDirections; d++ {
			dx, dy := y.apply(directionSteps[d][0], directionSteps[d][1], 0)
			for e := Direction(0); e < numDirections; e++ {
				if directionSteps[e] == [2]int{dx, dy} {
					symDir[y][d] = e
				}
			}
		}
	}
	for y := Symmetry(0); y < NumSymmetries; y++ {
		for z := Symmetry(0); z < NumSymmetries; z++ {
			for c := Symmetry(0); c < NumSymmetries; c++ {
				if symSquare[c] == composeSquares(y, z) {
					symCompose[y][z] = c
				}
			}
			if symCompose[y][z] == Identity {
				symInverse[y] = z
			}
		}
		for a := Action(0); a < NumActions; a++ {
			symAction[y][a] = a
			if m, err := MoveOf(a); err == nil {
				// The image of a legal move is a legal move, but the first
				// direction that reaches its target may change, so actions
				// are mapped through moves, not through directions.
				symAction[y][a], _ = ActionOf(y.Move(m))
			}
		}
	}
}

// composeSquares returns the square map of "y, then z".
func composeSquares(y, z Symmetry) [NumSquares]Square {
	var out [NumSquares]Square
	for s := range out {
		out[s] = symSquare[z][symSquare[y][s]]
	}
	return out
}

// String names the symmetry, such as "rotate-90".
func (y Symmetry) String() string {
	if y >= NumSymmetries {
		return fmt.Sprintf("Symmetry(%d)", uint8(y))
	}
	return symbolNames[y]
}

// Then returns the symmetry that applies y first and z second.
func (y Symmetry) Then(z Symmetry) Symmetry { return symCompose[y][z] }

// Inverse returns the symmetry that undoes y.
func (y Symmetry) Inverse() Symmetry { return symInverse[y] }

// Square maps a square.
func (y Symmetry) Square(s Square) Square { return symSquare[y][s] }

// Direction maps a direction.
func (y Symmetry) Direction(d Direction) Direction { return symDir[y][d] }

// Move maps a move.
func (y Symmetry) Move(m Move) Move {
	return Move{From: symSquare[y][m.From], To: symSquare[y][m.To], Count: m.Count}
}

// Action maps an action index. It is a permutation of the action space that
// sends the action of every move to the action of the mapped move; indices
// that are never legal map to themselves.
func (y Symmetry) Action(a Action) Action { return symAction[y][a] }

// Position maps a position; the side to move and the ply count stay.
func (y Symmetry) Position(p Position) Position {
	q := Position{side: p.side, ply: p.ply}
	for s, st := range p.stacks {
		q.stacks[symSquare[y][s]] = st
	}
	q.derive()
	return q
}

// Observation writes the mapped observation src into dst (both
// ObservationSize long, not overlapping).
func (y Symmetry) Observation(dst, src []float32) {
	for plane := 0; plane < NumPlanes; plane++ {
		base := plane * NumSquares
		for s := 0; s < NumSquares; s++ {
			dst[base+int(symSquare[y][s])] = src[base+s]
		}
	}
}

// Policy writes the mapped policy src (NumActions values over the action
// space) into dst; they must not overlap.
func (y Symmetry) Policy(dst, src []float32) {
	for a, v := range src[:NumActions] {
		dst[symAction[y][a]] = v
	}
}
