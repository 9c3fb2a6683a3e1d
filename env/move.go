package env

import (
	"fmt"
	"strconv"
	"strings"
)

// Move lifts the top Count pieces of the stack on From and lands them on To.
// A move is identified by these three values: two directions that reach the
// same square with the same count are the same move.
type Move struct {
	From  Square
	To    Square
	Count uint8
}

// String returns the move in the shared notation "<from>-<count>-<to>", such
// as "a6-2-a4".
func (m Move) String() string {
	return m.From.String() + "-" + strconv.Itoa(int(m.Count)) + "-" + m.To.String()
}

// ParseMove reads a move in the notation "<from>-<count>-<to>", such as
// "a6-2-a4". It checks the form only; whether the move is legal in a
// position is [Position.IsLegal]'s question.
func ParseMove(text string) (Move, error) {
	parts := strings.Split(text, "-")
	if len(parts) != 3 {
		return Move{}, fmt.Errorf("move %q: want <from>-<count>-<to>, such as a6-2-a4", text)
	}
	from, err := ParseSquare(parts[0])
	if err != nil {
		return Move{}, fmt.Errorf("move %q: from: %w", text, err)
	}
	to, err := ParseSquare(parts[2])
	if err != nil {
		return Move{}, fmt.Errorf("move %q: to: %w", text, err)
	}
	k, err := strconv.Atoi(parts[1])
	if err != nil || k < 1 || k > maxHeight || parts[1][0] == '+' || (parts[1][0] == '0') {
		return Move{}, fmt.Errorf("move %q: count %q: want a whole number from 1 to %d", text, parts[1], maxHeight)
	}
	return Move{From: from, To: to, Count: uint8(k)}, nil
}

// IsLegal reports whether m is a legal move in p. tooTall selects whether
// the too-tall rule is in force.
func (p *Position) IsLegal(m Move, tooTall bool) bool {
	return p.CheckMove(m, tooTall) == nil
}

// CheckMove returns nil if m is legal in p, and otherwise an error that says
// why not. tooTall selects whether the too-tall rule is in force.
func (p *Position) CheckMove(m Move, tooTall bool) error {
	if m.From >= NumSquares || m.To >= NumSquares {
		return fmt.Errorf("move %v: no such square", m)
	}
	if p.Finished() {
		return fmt.Errorf("move %v: the game is over", m)
	}
	st := p.stacks[m.From]
	k, h := int(m.Count), st.Height()
	switch {
	case st.Empty():
		return fmt.Errorf("move %v: %v is empty", m, m.From)
	case st.Top() != p.side:
		return fmt.Errorf("move %v: %v is controlled by %v, and %v is to move", m, m.From, st.Top(), p.side)
	case k < 1 || k > h:
		return fmt.Errorf("move %v: the stack on %v has %d pieces, so the count must be 1 to %d", m, m.From, h, h)
	case m.To == m.From:
		return fmt.Errorf("move %v: a move may not land on its own square", m)
	}
	if tooTall {
		if tall := p.tooTall(); tall != 0 {
			if tall&(1<<m.From) == 0 {
				return fmt.Errorf("move %v: too-tall rule: %v must move a stack taller than 4 (%s)", m, p.side, squareList(tall))
			}
			if k < h-4 {
				return fmt.Errorf("move %v: too-tall rule: the stack on %v has %d pieces, so at least %d must be lifted", m, m.From, h, h-4)
			}
		}
	}
	rc := &reachTable[m.From][k%period]
	for i := 0; i < int(rc.n); i++ {
		if rc.to[i] == m.To {
			return nil
		}
	}
	return fmt.Errorf("move %v: %d pieces from %v cannot reach %v in any direction", m, k, m.From, m.To)
}

// squareList names the squares of a bit set, such as "c3 d4".
func squareList(set uint64) string {
	var names []string
	for s := Square(0); s < NumSquares; s++ {
		if set&(1<<s) != 0 {
			names = append(names, s.String())
		}
	}
	return strings.Join(names, " ")
}
