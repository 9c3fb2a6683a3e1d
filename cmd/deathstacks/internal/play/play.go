// Package play is "deathstacks play": a game in the terminal between a
// person typing moves and commands and a player.
package play

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/train/table"
)

// help is the text of the help command.
const help = `commands:
  <move>   play a move in notation, such as a6-2-a4 (from, count, to)
  moves    list your legal moves
  undo     take back your last move and the engine's reply
  hint     ask the engine what it would play for you
  help     show this text
  quit     leave the game
`

// Session is one game between a person typing moves and a player.
type Session struct {
	Game   *env.Game
	Human  env.Color   // the person's colour
	Engine mcts.Player // the person's opponent
	Hinter mcts.Player // the player that answers "hint"
	In     *bufio.Scanner
	Out    io.Writer
	Color  bool // paint pieces with terminal escape codes
	Echo   bool // repeat what was typed, so a piped transcript reads well
	// humanMoveEnds is the game's length right after each of the
	// person's moves.
	humanMoveEnds []int
}

// Run plays the game until it ends, the person quits or the input ends.
func (p *Session) Run() error {
	fmt.Fprintf(p.Out, "You play %v. Type a move such as a6-2-a4, or help.\n", p.Human)
	p.draw()
	for !p.Game.Status().Over() {
		pos := p.Game.Position()
		if pos.SideToMove() != p.Human {
			if err := p.engineMove(); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(p.Out, "%v> ", p.Human)
		if !p.In.Scan() {
			fmt.Fprintln(p.Out, "\nbye")
			return p.In.Err()
		}
		line := strings.TrimSpace(p.In.Text())
		if p.Echo {
			fmt.Fprintln(p.Out, line)
		}
		quit, err := p.command(line)
		if err != nil {
			return err
		}
		if quit {
			fmt.Fprintln(p.Out, "bye")
			return nil
		}
	}
	fmt.Fprintf(p.Out, "game over: %v after %s\n", p.Game.Status(), table.Count(len(p.Game.Moves()), "ply", "plies"))
	return nil
}

// command handles one line typed by the person; it reports whether to quit.
func (p *Session) command(line string) (quit bool, err error) {
	switch line {
	case "":
	case "quit", "exit":
		return true, nil
	case "help", "?":
		fmt.Fprint(p.Out, help)
	case "moves":
		moves := p.Game.LegalMoves(nil)
		texts := make([]string, len(moves))
		for i, m := range moves {
			texts[i] = m.String()
		}
		fmt.Fprintf(p.Out, "%d legal moves: %s\n", len(moves), strings.Join(texts, " "))
	case "undo":
		p.undo()
	case "hint":
		pos := p.Game.Position()
		mover := pos.SideToMove()
		d, err := p.Hinter.Choose(p.Game)
		if err != nil {
			fmt.Fprintf(p.Out, "no hint: %v\n", err)
			break
		}
		fmt.Fprintf(p.Out, "hint: %v%s\n", d.Move, describe(d, mover))
	default:
		m, err := env.ParseMove(line)
		if err != nil {
			fmt.Fprintf(p.Out, "%v\ntype help for the commands\n", err)
			break
		}
		if err := p.Game.Play(m); err != nil {
			fmt.Fprintf(p.Out, "illegal: %v\n", err)
			break
		}
		p.humanMoveEnds = append(p.humanMoveEnds, len(p.Game.Moves()))
		fmt.Fprintf(p.Out, "you play %v\n", m)
		p.draw()
	}
	return false, nil
}

// undo takes back the person's last move and every move after it.
func (p *Session) undo() {
	n := len(p.humanMoveEnds)
	if n == 0 {
		fmt.Fprintln(p.Out, "nothing to undo")
		return
	}
	target := p.humanMoveEnds[n-1] - 1
	p.humanMoveEnds = p.humanMoveEnds[:n-1]
	for len(p.Game.Moves()) > target {
		if err := p.Game.Undo(); err != nil {
			break
		}
	}
	fmt.Fprintln(p.Out, "took back your last move")
	p.draw()
}

// engineMove plays the engine's move.
func (p *Session) engineMove() error {
	pos := p.Game.Position()
	mover := pos.SideToMove()
	d, err := p.Engine.Choose(p.Game)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	if err := p.Game.Play(d.Move); err != nil {
		return fmt.Errorf("engine played an illegal move: %w", err)
	}
	fmt.Fprintf(p.Out, "engine plays %v%s\n", d.Move, describe(d, mover))
	p.draw()
	return nil
}

// describe summarises what a player knows about its move for mover, the
// side it chose for, whose value it says: "value +0.25 for red".
func describe(d mcts.Decision, mover env.Color) string {
	var parts []string
	if !math.IsNaN(d.Value) {
		parts = append(parts, "value "+signedValue(d.Value)+" for "+mover.String())
	}
	if d.Simulations > 0 {
		parts = append(parts, table.Count(d.Simulations, "simulation", "simulations"))
	}
	if d.Depth > 0 {
		parts = append(parts, fmt.Sprintf("depth %d, score %d", d.Depth, d.Score))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// signedValue writes a value in [-1, 1] with two decimals and its sign,
// "+0.25", "-0.04", and one that rounds to nothing as "0.00", never
// "-0.00".
func signedValue(v float64) string {
	text := fmt.Sprintf("%+.2f", v)
	if text == "+0.00" || text == "-0.00" {
		return "0.00"
	}
	return text
}

// draw writes the board.
func (p *Session) draw() {
	pos := p.Game.Position()
	board := pos.Render()
	if p.Color {
		board = colorize(board)
	}
	fmt.Fprint(p.Out, board)
}

// colorize paints the piece letters of a rendered board red and blue.
func colorize(board string) string {
	lines := strings.Split(board, "\n")
	for i := 0; i < env.BoardSize && i < len(lines); i++ {
		var b strings.Builder
		for j, r := range lines[i] {
			switch {
			case j > 1 && r == 'r':
				b.WriteString("\x1b[31mr\x1b[0m")
			case j > 1 && r == 'b':
				b.WriteString("\x1b[34mb\x1b[0m")
			default:
				b.WriteRune(r)
			}
		}
		lines[i] = b.String()
	}
	return strings.Join(lines, "\n")
}
