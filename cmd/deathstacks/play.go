package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
)

const playHelp = `commands:
  <move>   play a move in notation, such as a6-2-a4 (from, count, to)
  moves    list your legal moves
  undo     take back your last move and the engine's reply
  hint     ask the engine what it would play for you
  help     show this text
  quit     leave the game
`

func runPlay(args []string, s stdio) error {
	fs := newFlags("play", "play [--player SPEC] [--human red|blue] [--fen FEN] [--seed S] [--no-too-tall] [--max-plies N]\n\nPlays a game in the terminal against any player. Type moves in notation\n(a6-2-a4) or a command: moves, undo, hint, help, quit. Works on a pipe too.", s)
	spec := fs.String("player", players.KindAZ, "the engine's player spec (see 'deathstacks bot --help'); az alone is the built-in player")
	human := fs.String("human", "red", "the colour you play: red or blue")
	fen := fs.String("fen", env.StartFEN, "the start position (FEN)")
	seed := fs.Uint64("seed", 1, "the engine's seed")
	noTooTall := fs.Bool("no-too-tall", false, "turn the too-tall rule off")
	maxPlies := fs.Int("max-plies", env.DefaultRules().MaxPlies, "the move limit (0: none)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var humanColor env.Color
	switch *human {
	case "red":
		humanColor = env.Red
	case "blue":
		humanColor = env.Blue
	default:
		return usageErr("--human %q: want red or blue", *human)
	}
	start, err := env.ParseFEN(*fen)
	if err != nil {
		return usageErr("%v", err)
	}
	rules := env.DefaultRules()
	rules.TooTall = !*noTooTall
	rules.MaxPlies = *maxPlies
	if err := rules.Validate(); err != nil {
		return usageErr("%v", err)
	}
	models := newModels(s.err)
	defer models.Close()
	engine, err := buildPlayer(models, *spec, *seed)
	if err != nil {
		return usageErr("--player: %v", err)
	}
	hinter, err := buildPlayer(models, *spec, *seed+1)
	if err != nil {
		return usageErr("--player: %v", err)
	}
	sess := &playSession{
		game:   env.NewGameFrom(start, rules),
		human:  humanColor,
		engine: engine,
		hinter: hinter,
		in:     bufio.NewScanner(s.in),
		out:    s.out,
		color:  isTerminal(s.out),
		echo:   !isTerminal(s.in),
	}
	return sess.run()
}

// playSession is one game between a person typing moves and a player.
type playSession struct {
	game          *env.Game
	human         env.Color
	engine        mcts.Player
	hinter        mcts.Player
	in            *bufio.Scanner
	out           io.Writer
	color         bool  // paint pieces with terminal escape codes
	echo          bool  // repeat what was typed, so a piped transcript reads well
	humanMoveEnds []int // game length right after each of the person's moves
}

func (p *playSession) run() error {
	fmt.Fprintf(p.out, "You play %v. Type a move such as a6-2-a4, or help.\n", p.human)
	p.draw()
	for !p.game.Status().Over() {
		pos := p.game.Position()
		if pos.SideToMove() != p.human {
			if err := p.engineMove(); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(p.out, "%v> ", p.human)
		if !p.in.Scan() {
			fmt.Fprintln(p.out, "\nbye")
			return p.in.Err()
		}
		line := strings.TrimSpace(p.in.Text())
		if p.echo {
			fmt.Fprintln(p.out, line)
		}
		quit, err := p.command(line)
		if err != nil {
			return err
		}
		if quit {
			fmt.Fprintln(p.out, "bye")
			return nil
		}
	}
	fmt.Fprintf(p.out, "game over: %v after %s\n", p.game.Status(), count(len(p.game.Moves()), "ply", "plies"))
	return nil
}

// command handles one line typed by the person; it reports whether to quit.
func (p *playSession) command(line string) (quit bool, err error) {
	switch line {
	case "":
	case "quit", "exit":
		return true, nil
	case "help", "?":
		fmt.Fprint(p.out, playHelp)
	case "moves":
		moves := p.game.LegalMoves(nil)
		texts := make([]string, len(moves))
		for i, m := range moves {
			texts[i] = m.String()
		}
		fmt.Fprintf(p.out, "%d legal moves: %s\n", len(moves), strings.Join(texts, " "))
	case "undo":
		p.undo()
	case "hint":
		pos := p.game.Position()
		mover := pos.SideToMove()
		d, err := p.hinter.Choose(p.game)
		if err != nil {
			fmt.Fprintf(p.out, "no hint: %v\n", err)
			break
		}
		fmt.Fprintf(p.out, "hint: %v%s\n", d.Move, describe(d, mover))
	default:
		m, err := env.ParseMove(line)
		if err != nil {
			fmt.Fprintf(p.out, "%v\ntype help for the commands\n", err)
			break
		}
		if err := p.game.Play(m); err != nil {
			fmt.Fprintf(p.out, "illegal: %v\n", err)
			break
		}
		p.humanMoveEnds = append(p.humanMoveEnds, len(p.game.Moves()))
		fmt.Fprintf(p.out, "you play %v\n", m)
		p.draw()
	}
	return false, nil
}

// undo takes back the person's last move and every move after it.
func (p *playSession) undo() {
	n := len(p.humanMoveEnds)
	if n == 0 {
		fmt.Fprintln(p.out, "nothing to undo")
		return
	}
	target := p.humanMoveEnds[n-1] - 1
	p.humanMoveEnds = p.humanMoveEnds[:n-1]
	for len(p.game.Moves()) > target {
		if err := p.game.Undo(); err != nil {
			break
		}
	}
	fmt.Fprintln(p.out, "took back your last move")
	p.draw()
}

func (p *playSession) engineMove() error {
	pos := p.game.Position()
	mover := pos.SideToMove()
	d, err := p.engine.Choose(p.game)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	if err := p.game.Play(d.Move); err != nil {
		return fmt.Errorf("engine played an illegal move: %w", err)
	}
	fmt.Fprintf(p.out, "engine plays %v%s\n", d.Move, describe(d, mover))
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
		parts = append(parts, count(d.Simulations, "simulation", "simulations"))
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

func (p *playSession) draw() {
	pos := p.game.Position()
	board := pos.Render()
	if p.color {
		board = colorize(board)
	}
	fmt.Fprint(p.out, board)
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

// isTerminal reports whether a stream is a terminal (a character device).
func isTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
