package env

import "fmt"

// The action space is fixed: every index in [0, NumActions) names a
// (direction, count, from-square) triple,
//
//	action = (direction*24 + count-1)*NumSquares + from
//
// so a network can emit it as 8*24 planes of 6x6 logits (plane =
// direction*24 + count-1, cell = from square), 24 being the tallest stack. A legal move
// (from, count, to) maps to the index of the first direction, in [Direction]
// order, that carries count pieces from "from" to "to"; [ActionOf] and
// [MoveOf] are inverse on legal moves. Indices of other directions reaching
// the same square, of counts 10 and 20 (which always return to the start)
// and of counts taller than any stack are never legal.
//
// Index 0 (a1, north, one piece) is a real move; a network must not rely on
// index 0 being illegal (see the softmax note in the model package).
const (
	NumActions       = numDirections * maxHeight * NumSquares
	actionPlaneCount = numDirections * maxHeight
)

// Action is an index into the fixed action space.
type Action int

// newAction returns the index of (direction, count, from); count is 1..24.
func newAction(from Square, d Direction, count int) Action {
	return Action((int(d)*maxHeight+count-1)*NumSquares + int(from))
}

// parts splits an action index into its from square, direction and count.
func (a Action) parts() (from Square, d Direction, count int) {
	i := int(a)
	from = Square(i % NumSquares)
	i /= NumSquares
	return from, Direction(i / maxHeight), i%maxHeight + 1
}

// Valid reports whether a is an index in [0, NumActions).
func (a Action) Valid() bool { return a >= 0 && a < NumActions }

// ActionOf returns the action index of a move. The move need not be legal
// in any position, but it must be geometrically possible: count pieces from
// m.From must reach m.To in some direction.
func ActionOf(m Move) (Action, error) {
	k := int(m.Count)
	if m.From >= NumSquares || m.To >= NumSquares || k < 1 || k > maxHeight {
		return 0, fmt.Errorf("action of move %v: out of range", m)
	}
	if a, ok := actionIndex(m); ok {
		return a, nil
	}
	return 0, fmt.Errorf("action of move %v: %d pieces from %v never reach %v", m, k, m.From, m.To)
}

// actionIndex finds the first direction that carries m.Count pieces from
// m.From to m.To; m's squares and count must be in range.
func actionIndex(m Move) (Action, bool) {
	k := int(m.Count)
	d := firstDirection[m.From][k%period][m.To]
	return newAction(m.From, d, k), d != noDirection
}

// noDirection marks a target no direction reaches.
const noDirection Direction = numDirections

// firstDirection[s][k%10][t] is the first direction, in Direction order,
// that carries k pieces from s to t (noDirection for none): reachTable
// turned around, so that a move's action index is one lookup.
var firstDirection = buildFirstDirection()

func buildFirstDirection() (first [NumSquares][period][NumSquares]Direction) {
	for s := range first {
		for r := range first[s] {
			for t := range first[s][r] {
				first[s][r][t] = noDirection
			}
			rc := &reachTable[s][r]
			for i := 0; i < int(rc.n); i++ {
				first[s][r][rc.to[i]] = rc.dir[i]
			}
		}
	}
	return first
}

// MoveOf returns the move an action index stands for. It reports an error
// for an index out of range and for one that is never a legal move (a
// direction that is not the first to reach its target, or a target equal to
// the start); it does not check the move against a position.
func MoveOf(a Action) (Move, error) {
	if !a.Valid() {
		return Move{}, fmt.Errorf("action %d: out of range [0, %d)", int(a), NumActions)
	}
	m := a.move()
	if m.To == m.From {
		from, d, k := a.parts()
		return Move{}, fmt.Errorf("action %d (%v %v %d): lands on its own square", int(a), from, d, k)
	}
	if canon, _ := ActionOf(m); canon != a {
		from, d, k := a.parts()
		return Move{}, fmt.Errorf("action %d (%v %v %d): move %v is action %d", int(a), from, d, k, m, int(canon))
	}
	return m, nil
}

// move returns the move of a valid action index, unchecked.
func (a Action) move() Move {
	from, d, k := a.parts()
	return Move{From: from, To: Destination(from, d, k), Count: uint8(k)}
}

// LegalActions appends the action indices of p's legal moves to dst, in the
// order of [Position.LegalMoves].
func (p *Position) LegalActions(dst []Action, tooTall bool) []Action {
	from, forced := p.movable(tooTall)
	for ; from != 0; from &= from - 1 {
		s := Square(trailingZeros(from))
		lo, hi := span(s, p.stacks[s].Height(), forced)
		for _, a := range actionsFrom[s][lo:hi] {
			dst = append(dst, Action(a))
		}
	}
	return dst
}

// actionsFrom[s] lists the actions of the moves from s in the order of
// [Position.LegalMoves], by count and then direction, counts 1 to
// maxHeight: the moves of a stack are a run of it (see span).
var actionsFrom = buildActionsFrom()

func buildActionsFrom() (from [NumSquares][maxHeight * numDirections]uint16) {
	for s := range from {
		i := 0
		for k := 1; k <= maxHeight; k++ {
			rc := &reachTable[s][k%period]
			for _, d := range rc.dir[:rc.n] {
				from[s][i] = uint16(newAction(Square(s), d, k))
				i++
			}
		}
	}
	return from
}

// legalMask sets mask[a] to whether action a is legal in p; mask must have
// NumActions entries.
func (p *Position) legalMask(mask []bool, tooTall bool) {
	clear(mask[:NumActions])
	var buf [256]Action
	for _, a := range p.LegalActions(buf[:0], tooTall) {
		mask[a] = true
	}
}
