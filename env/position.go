package env

// Position is a Death Stacks position: the stacks on all 36 squares, the side
// to move, the number of plies played, and a Zobrist hash and the squares
// each colour controls, both kept up to date move by move. It is a small
// value (about 180 bytes): copy it to keep a snapshot. The zero Position is an empty board with Red to move; use
// [StartPosition] or [ParseFEN] to get a real one.
type Position struct {
	stacks [NumSquares]Stack
	hash   uint64
	// control holds, for each colour, bit s for each stack on square s
	// whose top piece has that colour.
	control [2]uint64
	ply     int32
	side    Color
}

// StartFEN is the start position in FEN.
const StartFEN = "rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb r"

// StartPosition returns the start position: two red pieces on every square
// of rank 6, two blue pieces on every square of rank 1, Red to move.
func StartPosition() Position {
	var p Position
	for f := 0; f < BoardSize; f++ {
		p.stacks[newSquare(f, BoardSize-1)] = NewStack(Red, Red)
		p.stacks[newSquare(f, 0)] = NewStack(Blue, Blue)
	}
	p.derive()
	return p
}

// NewPosition builds a position from its stacks and the side to move, with
// the ply count at 0. It reports an error if a colour has more than 12
// pieces.
func NewPosition(stacks [NumSquares]Stack, side Color) (Position, error) {
	p := Position{stacks: stacks, side: side & 1}
	if err := p.checkPieces(); err != nil {
		return Position{}, err
	}
	p.derive()
	return p, nil
}

// At returns the stack on square s.
func (p *Position) At(s Square) Stack { return p.stacks[s] }

// SideToMove returns the player whose turn it is.
func (p *Position) SideToMove() Color { return p.side }

// Ply returns the number of plies played since the position the game
// started from (0 for a position read from FEN).
func (p *Position) Ply() int { return int(p.ply) }

// SetPly sets the ply count, for a position read from FEN in the middle of a
// game.
func (p *Position) SetPly(ply int) { p.ply = int32(ply) }

// Hash returns the Zobrist hash of the stacks and the side to move. Two
// positions that differ only in the ply count have the same hash, which is
// what repetition detection needs.
func (p *Position) Hash() uint64 { return p.hash }

// SameAs reports whether p and q have the same stacks and side to move.
func (p *Position) SameAs(q *Position) bool { return p.stacks == q.stacks && p.side == q.side }

// Pieces returns the number of pieces of colour c on the board.
func (p *Position) Pieces(c Color) int {
	n := 0
	for _, st := range p.stacks {
		n += st.count(c)
	}
	return n
}

// Controlled returns a bit set (bit s for square s) of the stacks whose top
// piece has colour c.
func (p *Position) Controlled(c Color) uint64 { return p.control[c&1] }

// ControlledAfter returns the bit set that Controlled(c) would return after
// m, a move of the side to move, without playing it: the landing square
// goes to the mover, and the square left to the colour of the piece now
// on top there, if any.
func (p *Position) ControlledAfter(m Move, c Color) uint64 {
	src := p.stacks[m.From]
	// Bit i of is says whether the i-th piece from the bottom is c's; the
	// piece left on top is the one m.Count below the top, none (a shift
	// past 63, so 0) when the whole stack moves. Branch-free and small
	// enough to inline: the win searches call it for every move.
	is := uint64(src.colors() ^ (uint32(c&1) - 1))
	top := uint(src>>stackHeightShift) - 1
	return p.control[c&1]&^(1<<m.From|1<<m.To) |
		is>>top&1<<m.To |
		is>>(top-uint(m.Count))&1<<m.From
}

// Finished reports whether the game is over on the board: one side (or
// both) controls no stack. Draws by repetition and the move limit need the
// game's history; see [Game].
func (p *Position) Finished() bool {
	red, blue := p.controlBoth()
	return red == 0 || blue == 0
}

// Winner returns the player that controls every stack of a finished
// position. ok is false while both players control a stack, and for an
// empty board, which has no winner.
func (p *Position) Winner() (winner Color, ok bool) {
	red, blue := p.controlBoth()
	switch {
	case red != 0 && blue == 0:
		return Red, true
	case blue != 0 && red == 0:
		return Blue, true
	}
	return Red, false
}

// controlBoth returns the squares each colour controls.
func (p *Position) controlBoth() (red, blue uint64) { return p.control[Red], p.control[Blue] }

// Apply plays m, which must be legal (see [Position.IsLegal]); the move is
// not checked, for speed. Use [Game.Play] for checked play.
func (p *Position) Apply(m Move) {
	p.transfer(m.From, m.To, int(m.Count))
	p.side ^= 1
	p.hash ^= zobristBlueToMove
	p.ply++
}

// undo takes back m, which must be the last move applied to p.
func (p *Position) undo(m Move) {
	p.transfer(m.To, m.From, int(m.Count))
	p.side ^= 1
	p.hash ^= zobristBlueToMove
	p.ply--
}

// transfer moves the top k pieces of the stack on from onto to, updating the
// hash for each piece that changes place.
func (p *Position) transfer(from, to Square, k int) {
	src, dst := p.stacks[from], p.stacks[to]
	rest, lifted := src.split(k)
	base, land := rest.Height(), dst.Height()
	c := lifted.colors()
	for i := 0; i < k; i++ {
		col := c >> i & 1
		p.hash ^= zobristPiece[from][base+i][col] ^ zobristPiece[to][land+i][col]
	}
	p.stacks[from] = rest
	p.stacks[to] = dst.land(lifted)
	p.setControl(from)
	p.setControl(to)
}

// setControl brings the control bit of square s up to date.
func (p *Position) setControl(s Square) {
	bit := uint64(1) << s
	p.control[Red] &^= bit
	p.control[Blue] &^= bit
	if st := p.stacks[s]; st != 0 {
		p.control[st.Top()] |= bit
	}
}

// derive sets what is kept up to date move by move, the hash and the
// control, from the stacks and the side to move.
func (p *Position) derive() {
	p.hash = p.computeHash()
	p.control = p.computeControl()
}

// computeControl computes the control of both colours from scratch.
func (p *Position) computeControl() (control [2]uint64) {
	for s, st := range p.stacks {
		if st != 0 {
			control[st.Top()] |= 1 << s
		}
	}
	return control
}

// computeHash computes the Zobrist hash from scratch.
func (p *Position) computeHash() uint64 {
	var h uint64
	for s, st := range p.stacks {
		c := st.colors()
		for l := 0; l < st.Height(); l++ {
			h ^= zobristPiece[s][l][c>>l&1]
		}
	}
	if p.side == Blue {
		h ^= zobristBlueToMove
	}
	return h
}
