package env

import (
	"fmt"
	"strings"
)

// ParseFEN reads a position in the project's FEN:
//
//	<rank 6>/<rank 5>/<rank 4>/<rank 3>/<rank 2>/<rank 1> <side to move>
//
// Each rank lists its six squares a..f separated by commas; a square lists
// its pieces from the top down ('r' or 'b'), and an empty square is empty
// text. The side to move is 'r' or 'b'. Surrounding white space is ignored.
// The ply count of the result is 0. An error names the rank, square and
// character at fault.
func ParseFEN(fen string) (Position, error) {
	text := strings.TrimSpace(fen)
	// The side is what follows the last space, so that a stray space inside
	// the board is reported as a bad character on its square.
	cut := strings.LastIndexByte(text, ' ')
	if cut < 0 {
		return Position{}, fmt.Errorf("fen %q: missing side to move: want the board, one space and 'r' or 'b'", fen)
	}
	board, side := text[:cut], text[cut+1:]
	var p Position
	switch side {
	case "r":
		p.side = Red
	case "b":
		p.side = Blue
	default:
		return Position{}, fmt.Errorf("fen %q: side to move %q: want 'r' or 'b'", fen, side)
	}
	ranks := strings.Split(board, "/")
	if len(ranks) != BoardSize {
		return Position{}, fmt.Errorf("fen %q: %d ranks: want %d separated by '/'", fen, len(ranks), BoardSize)
	}
	for i, rankText := range ranks {
		rank := BoardSize - 1 - i
		squares := strings.Split(rankText, ",")
		if len(squares) != BoardSize {
			return Position{}, fmt.Errorf("fen %q: rank %d has %d squares: want %d separated by ','", fen, rank+1, len(squares), BoardSize)
		}
		for file, sq := range squares {
			s := newSquare(file, rank)
			if len(sq) > maxHeight {
				return Position{}, fmt.Errorf("fen %q: square %v: %d pieces: at most %d fit on the board", fen, s, len(sq), maxHeight)
			}
			pieces := make([]Color, len(sq))
			for j := 0; j < len(sq); j++ {
				switch sq[j] {
				case 'r':
					pieces[j] = Red
				case 'b':
					pieces[j] = Blue
				default:
					return Position{}, fmt.Errorf("fen %q: square %v: character %d is %q: want 'r' or 'b'", fen, s, j+1, sq[j])
				}
			}
			p.stacks[s] = NewStack(pieces...)
		}
	}
	if err := p.checkPieces(); err != nil {
		return Position{}, fmt.Errorf("fen %q: %w", fen, err)
	}
	p.derive()
	return p, nil
}

// checkPieces reports an error if a colour has more than 12 pieces.
func (p *Position) checkPieces() error {
	for _, c := range []Color{Red, Blue} {
		if n := p.Pieces(c); n > piecesPerSide {
			return fmt.Errorf("%d %v pieces: at most %d", n, c, piecesPerSide)
		}
	}
	return nil
}

// FEN returns the position in the project's FEN; ParseFEN reads it back.
func (p *Position) FEN() string {
	var b strings.Builder
	for rank := BoardSize - 1; rank >= 0; rank-- {
		for file := 0; file < BoardSize; file++ {
			b.WriteString(p.stacks[newSquare(file, rank)].String())
			if file < BoardSize-1 {
				b.WriteByte(',')
			}
		}
		if rank > 0 {
			b.WriteByte('/')
		}
	}
	b.WriteByte(' ')
	b.WriteByte(p.side.letter())
	return b.String()
}

// String returns the FEN.
func (p Position) String() string { return p.FEN() }
