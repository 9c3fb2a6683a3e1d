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
	// Cells are padded to a common width; a line's padding is trimmed so no
	// line ends in spaces.
	line := func(label string, cells func(file int) string) {
		row := label
		for file := 0; file < BoardSize; file++ {
			row += fmt.Sprintf(" %-*s", width, cells(file))
		}
		b.WriteString(strings.TrimRight(row, " "))
		b.WriteByte('\n')
	}
	for rank := BoardSize - 1; rank >= 0; rank-- {
		line(fmt.Sprintf("%d ", rank+1), func(file int) string {
			if cell := p.stacks[newSquare(file, rank)].String(); cell != "" {
				return cell
			}
			return "."
		})
	}
	line("  ", func(file int) string { return string(rune('a' + file)) })
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
