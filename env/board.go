package env

import (
	"fmt"
	"math/bits"
)

// BoardSize is the number of files and of ranks.
const BoardSize = 6

// NumSquares is the number of squares on the board.
const NumSquares = BoardSize * BoardSize

// piecesPerSide is the number of pieces each player owns.
const piecesPerSide = 12

// maxHeight is the tallest possible stack: every piece of both players.
const maxHeight = 2 * piecesPerSide

// Color is a player and the colour of its pieces.
type Color uint8

// The two players. Red moves first.
const (
	Red  Color = 0
	Blue Color = 1
)

// Other returns the opponent of c.
func (c Color) Other() Color { return c ^ 1 }

// String returns "red" or "blue".
func (c Color) String() string {
	if c == Red {
		return "red"
	}
	return "blue"
}

// letter returns the colour's letter in FEN: 'r' or 'b'.
func (c Color) letter() byte {
	if c == Red {
		return 'r'
	}
	return 'b'
}

// Square is a board square, 0..35: a1=0, b1=1, ..., f1=5, a2=6, ..., f6=35.
type Square uint8

// newSquare returns the square on file 0..5 (a..f) and rank 0..5 (1..6).
func newSquare(file, rank int) Square { return Square(rank*BoardSize + file) }

// file returns the file, 0 for a through 5 for f.
func (s Square) file() int { return int(s) % BoardSize }

// rank returns the rank, 0 for rank 1 through 5 for rank 6.
func (s Square) rank() int { return int(s) / BoardSize }

// String returns the square's name, such as "a1".
func (s Square) String() string {
	if s >= NumSquares {
		return fmt.Sprintf("Square(%d)", uint8(s))
	}
	return string([]byte{'a' + byte(s.file()), '1' + byte(s.rank())})
}

// ParseSquare reads a square name such as "c4".
func ParseSquare(text string) (Square, error) {
	if len(text) != 2 || text[0] < 'a' || text[0] > 'f' || text[1] < '1' || text[1] > '6' {
		return 0, fmt.Errorf("square %q: want a file a-f and a rank 1-6, such as c4", text)
	}
	return newSquare(int(text[0]-'a'), int(text[1]-'1')), nil
}

// Stack is an ordered pile of pieces on one square, packed in 32 bits: bit i
// (0..23) is the colour of the i-th piece from the bottom (1 for blue), and
// the bits from 24 up hold the height. The zero Stack is an empty square.
type Stack uint32

const (
	stackHeightShift = 24
	stackColorMask   = 1<<stackHeightShift - 1
)

// NewStack builds a stack from its pieces listed from the top down, the order
// FEN uses. It panics on more than 24 pieces; parsers check first.
func NewStack(topDown ...Color) Stack {
	h := len(topDown)
	if h > maxHeight {
		panic("env: stack taller than 24 pieces")
	}
	var c uint32
	for i, col := range topDown {
		c |= uint32(col) << (h - 1 - i)
	}
	return Stack(uint32(h)<<stackHeightShift | c)
}

// Height returns the number of pieces in the stack.
func (s Stack) Height() int { return int(s >> stackHeightShift) }

// Empty reports whether the square holds no piece.
func (s Stack) Empty() bool { return s == 0 }

// colors returns the colour bits, bottom piece in bit 0.
func (s Stack) colors() uint32 { return uint32(s) & stackColorMask }

// Top returns the colour of the top piece, the stack's controller. The
// result is meaningless for an empty stack (but it does not panic: the
// unsigned shift count turns "below the bottom" into a shift out of range).
func (s Stack) Top() Color { return Color(s.colors()>>uint(s.Height()-1)) & 1 }

// At returns the colour of the piece at the given depth, 0 being the top.
// The result is meaningless for a depth outside the stack.
func (s Stack) At(depth int) Color { return Color(s.colors()>>uint(s.Height()-1-depth)) & 1 }

// count returns how many pieces of colour c the stack holds.
func (s Stack) count(c Color) int {
	blue := bits.OnesCount32(s.colors())
	if c == Blue {
		return blue
	}
	return s.Height() - blue
}

// String lists the pieces from the top down, as in FEN ("brr"); an empty
// stack is "".
func (s Stack) String() string {
	b := make([]byte, s.Height())
	for d := range b {
		b[d] = s.At(d).letter()
	}
	return string(b)
}

// split lifts the top k pieces: it returns what stays and what is lifted.
func (s Stack) split(k int) (rest, lifted Stack) {
	h := s.Height()
	c := s.colors()
	keep := uint32(h - k)
	rest = Stack(keep<<stackHeightShift | c&(1<<keep-1))
	lifted = Stack(uint32(k)<<stackHeightShift | c>>keep)
	return rest, lifted
}

// land puts the pieces of top onto s, keeping their order.
func (s Stack) land(top Stack) Stack {
	h := s.Height()
	return Stack(uint32(h+top.Height())<<stackHeightShift | s.colors() | top.colors()<<h)
}

// Direction is one of the eight directions a stack can travel.
type Direction uint8

// The eight directions, in the order the action space uses.
const (
	North Direction = iota
	NorthEast
	East
	SouthEast
	South
	SouthWest
	West
	NorthWest
	numDirections = 8
)

var directionNames = [numDirections]string{"N", "NE", "E", "SE", "S", "SW", "W", "NW"}

// directionSteps holds each direction's (file, rank) step.
var directionSteps = [numDirections][2]int{
	{0, 1}, {1, 1}, {1, 0}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0}, {-1, 1},
}

// String returns the compass name, such as "NE".
func (d Direction) String() string {
	if d >= numDirections {
		return fmt.Sprintf("Direction(%d)", uint8(d))
	}
	return directionNames[d]
}

// reflect returns where a coordinate x (0..5) ends after moving n steps of
// delta (-1, 0 or 1) with mirror reflection at both edges: each axis runs
// 0,1,2,3,4,5,4,3,2,1,0,1,... with period 10.
func reflect(x, delta, n int) int {
	u := ((x+delta*n)%10 + 10) % 10
	if u > BoardSize-1 {
		u = 2*(BoardSize-1) - u
	}
	return u
}

// Destination returns the square that k pieces lifted from s reach when they
// travel in direction d, reflecting at the edges. It may be s itself.
func Destination(s Square, d Direction, k int) Square {
	step := directionSteps[d]
	return newSquare(reflect(s.file(), step[0], k), reflect(s.rank(), step[1], k))
}
