package env

import (
	"fmt"
	"strings"
)

// Render draws the position as text: rank 6 at the top, each square showing
// its stack from the top down (so "brr" is a blue piece on two red ones) or
// "." when empty, then the side to move, the ply and, when the too-tall rule
// would force a move, the stacks it concerns.
func (p *Position) Render() string {
	width := 2
	for _, st := range p.stacks {
		width = max(width, st.Height())
	}
	var b strings.Builder
	for rank := BoardSize - 1; rank >= 0; rank-- {
		fmt.Fprintf(&b, "%d ", rank+1)
		for file := 0; file < BoardSize; file++ {
			cell := p.stacks[NewSquare(file, rank)].String()
			if cell == "" {
				cell = "."
			}
			fmt.Fprintf(&b, " %-*s", width, cell)
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ")
	for file := 0; file < BoardSize; file++ {
		fmt.Fprintf(&b, " %-*c", width, 'a'+file)
	}
	b.WriteByte('\n')
	fmt.Fprintf(&b, "%v to move, ply %d", p.side, p.ply)
	if tall := p.tooTall(); tall != 0 {
		fmt.Fprintf(&b, ", too tall: %s", squareList(tall))
	}
	if w, ok := p.Winner(); ok {
		fmt.Fprintf(&b, ", %v has won", w)
	}
	b.WriteByte('\n')
	return b.String()
}
