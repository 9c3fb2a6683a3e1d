// The commands that answer positions: bot and bestmove with a player's
// move, moves, perft and show with what the rules say.

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
)

// specFlagHelp explains the --player flag of the commands that take one.
var specFlagHelp = "the player: KIND or KIND:KEY=VALUE,KEY=VALUE... with these kinds and keys:\n" + players.SpecHelp()

// newModels returns the az players' networks, reporting what a load passes
// over to warn.
func newModels(warn io.Writer) *train.Models {
	return train.NewModels(model.DefaultServerConfig(), warn)
}

// buildPlayer parses a player spec and builds the player with its seed; az
// players get their networks from models.
func buildPlayer(models *train.Models, text string, seed uint64) (mcts.Player, error) {
	if text == "" {
		return nil, fmt.Errorf("no player given: want a spec such as alphabeta:depth=4")
	}
	spec, err := players.ParseSpec(text)
	if err != nil {
		return nil, err
	}
	return players.NewPlayer(spec, seed, models.Load)
}

// botRules returns the rules the bot commands play by: the defaults with
// the too-tall rule as the flag says.
func botRules(noTooTall bool) env.Rules {
	r := env.DefaultRules()
	r.TooTall = !noTooTall
	return r
}

func runBot(args []string, s stdio) error {
	fs := newFlags("bot", `bot [--player SPEC] [--seed S] [--no-too-tall]

Reads positions from standard input, one a line, and writes the player's
move for each in notation (a6-2-a4), one a line, flushed at once. A line is
a FEN, or a FEN followed by the word moves and the moves played since that
FEN, separated by spaces:

  FEN moves a6-2-a4 b1-1-b2

which is the whole game the bot is told (the FEN at ply 0). A FEN alone
continues the game of the line before if that game goes on and the FEN's
position follows that line's position by at most two plies (the bot's move
and the reply, by legal moves), so that the search sees repetitions and
the move limit; any other FEN starts a new game at ply 0. A finished position (by the rules and the
game's history), a bad line or a bad move gets "none" and a message on
standard error, and the bot goes on; the exit status is then 2.`, s)
	specText := fs.String("player", players.KindAZ, specFlagHelp)
	seed := fs.Uint64("seed", 1, "the player's seed")
	noTooTall := fs.Bool("no-too-tall", false, "turn the too-tall rule off")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	models := newModels(s.err)
	defer models.Close()
	player, err := buildPlayer(models, *specText, *seed)
	if err != nil {
		return usageErr("--player: %v", err)
	}
	games := &botGames{rules: botRules(*noTooTall)}
	sc := bufio.NewScanner(s.in)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	bad := 0
	for line := 1; sc.Scan(); line++ {
		move, err := botMove(player, games, sc.Text())
		if err != nil {
			bad++
			fmt.Fprintf(s.err, "deathstacks bot: line %d: %v\n", line, err)
			move = "none"
		}
		if _, err := io.WriteString(s.out, move+"\n"); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read standard input: %w", err)
	}
	if bad > 0 {
		return &exitError{code: 2, err: fmt.Errorf("%s without a move", count(bad, "line", "lines"))}
	}
	return nil
}

// botMove returns the player's move for one line of the bot's input, in
// notation.
func botMove(player mcts.Player, games *botGames, line string) (string, error) {
	g, err := games.next(line)
	if err != nil {
		return "", err
	}
	d, err := player.Choose(g)
	if err != nil {
		return "", err
	}
	return d.Move.String(), nil
}

// movesWord separates a FEN from the moves played since it in a line of the
// bot's input.
const movesWord = "moves"

// continuationPlies is how far past the last position it was given the bot
// looks for a FEN given alone: its own move and the reply.
const continuationPlies = 2

// botGames is what the bot knows of the game it plays: the game of the
// last line, from which a FEN alone may continue unless it is over.
type botGames struct {
	rules env.Rules
	last  *env.Game // nil before the first line, and after a bad one
}

// next returns the game of one input line, refusing a finished one: the
// game the line spells out (FEN moves ...), or for a FEN alone the last
// game continued to it if it follows within continuationPlies, else a new
// game from it.
func (b *botGames) next(line string) (*env.Game, error) {
	told, moves, err := parseGameLine(line)
	b.last, err = b.game(told, moves, err)
	if err != nil {
		return nil, err
	}
	if st := b.last.Status(); st.Over() {
		return nil, fmt.Errorf("no move: the game is over (%v)", st)
	}
	return b.last, nil
}

func (b *botGames) game(pos env.Position, moves []string, err error) (*env.Game, error) {
	switch {
	case err != nil:
		return nil, err
	case moves != nil:
		return env.PlayMoves(pos, b.rules, moves)
	case b.last != nil && !b.last.Status().Over():
		if path, ok := b.last.Continuation(&pos, continuationPlies); ok {
			g := b.last.Clone()
			for _, m := range path {
				if err := g.Play(m); err != nil {
					return nil, err // cannot happen: Continuation's moves are legal
				}
			}
			return g, nil
		}
	}
	return env.NewGameFrom(pos, b.rules), nil
}

// parseGameLine reads "FEN" or "FEN moves M1 M2 ...": the position and
// the texts of the moves, nil for a FEN alone (empty, not nil, for "FEN
// moves").
func parseGameLine(line string) (env.Position, []string, error) {
	fields := strings.Fields(line)
	if len(fields) <= 2 {
		pos, err := env.ParseFEN(line)
		return pos, nil, err
	}
	if fields[2] != movesWord {
		return env.Position{}, nil, fmt.Errorf("%q: want a FEN (board and side to move), optionally followed by %q and moves", line, movesWord)
	}
	pos, err := env.ParseFEN(fields[0] + " " + fields[1])
	return pos, append([]string{}, fields[3:]...), err
}

func runBestmove(args []string, s stdio) error {
	fs := newFlags("bestmove", `bestmove --fen FEN [--moves "M1 M2 ..."] --player SPEC [--seed S] [--no-too-tall]

Prints the player's move for the position in notation on the first line,
then what the player knows about it, a "key: value" a line: value (the
expected outcome for the mover, -1 to 1), visits and simulations (MCTS
players), depth and score (alpha-beta and greedy), pv (the principal
variation) and nodes (positions searched). A finished position prints
"none". The game starts at --fen, at ply 0, and goes on with --moves, so
that the search sees repetitions and the move limit.`, s)
	fen := fs.String("fen", "", "the position (FEN)")
	moves := fs.String("moves", "", "the moves played since --fen, in notation, separated by spaces")
	specText := fs.String("player", "", specFlagHelp)
	seed := fs.Uint64("seed", 1, "the player's seed")
	noTooTall := fs.Bool("no-too-tall", false, "turn the too-tall rule off")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *fen == "" {
		return usageErr("--fen is required")
	}
	models := newModels(s.err)
	defer models.Close()
	player, err := buildPlayer(models, *specText, *seed)
	if err != nil {
		return usageErr("--player: %v", err)
	}
	pos, err := env.ParseFEN(*fen)
	if err != nil {
		return usageErr("%v", err)
	}
	g, err := env.PlayMoves(pos, botRules(*noTooTall), strings.Fields(*moves))
	if err != nil {
		return usageErr("--moves: %v", err)
	}
	if st := g.Status(); st.Over() {
		fmt.Fprintln(s.out, "none")
		return &exitError{code: 2, err: fmt.Errorf("no move: the game is over (%v)", st)}
	}
	d, err := player.Choose(g)
	if err != nil {
		return err
	}
	_, err = io.WriteString(s.out, describeDecision(d))
	return err
}

// describeDecision writes a decision as bestmove prints it: the move, then
// one "key: value" line for each thing the player knows.
func describeDecision(d mcts.Decision) string {
	var b strings.Builder
	fmt.Fprintln(&b, d.Move)
	if !math.IsNaN(d.Value) {
		fmt.Fprintf(&b, "value: %.4f\n", d.Value)
	}
	if d.Simulations > 0 {
		visits := 0
		for _, n := range d.Visits {
			visits += n
		}
		fmt.Fprintf(&b, "visits: %d\nsimulations: %d\n", visits, d.Simulations)
	}
	if d.Depth > 0 {
		fmt.Fprintf(&b, "depth: %d\nscore: %d\n", d.Depth, d.Score)
	}
	if len(d.PV) > 0 {
		moves := make([]string, len(d.PV))
		for i, m := range d.PV {
			moves[i] = m.String()
		}
		fmt.Fprintf(&b, "pv: %s\n", strings.Join(moves, " "))
	}
	if d.Nodes > 0 {
		fmt.Fprintf(&b, "nodes: %d\n", d.Nodes)
	}
	return b.String()
}

// runMoves answers each input line with one output line, even for a bad
// FEN, so that a program feeding it FENs can pair questions and answers.
func runMoves(args []string, s stdio) error {
	fs := newFlags("moves", "moves [--fen FEN] [--no-too-tall]\n\nWith --fen, prints the legal moves one per line. Without it, reads FEN lines\nfrom standard input and writes one line per input line: its legal moves\nseparated by spaces (empty for a finished position). A bad line gets a\nmessage on stderr and an empty output line; the exit status is then 2.", s)
	fen := fs.String("fen", "", "the position (FEN); without it, FEN lines are read from standard input")
	noTooTall := fs.Bool("no-too-tall", false, "turn the too-tall rule off")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	tooTall := !*noTooTall
	if *fen != "" {
		p, err := env.ParseFEN(*fen)
		if err != nil {
			return usageErr("%v", err)
		}
		w := bufio.NewWriter(s.out)
		for _, m := range p.LegalMoves(nil, tooTall) {
			fmt.Fprintln(w, m)
		}
		return w.Flush()
	}
	sc := bufio.NewScanner(s.in)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	w := bufio.NewWriter(s.out)
	bad := 0
	for line := 1; sc.Scan(); line++ {
		p, err := env.ParseFEN(sc.Text())
		if err != nil {
			bad++
			w.Flush()
			fmt.Fprintf(s.err, "deathstacks moves: line %d: %v\n", line, err)
			fmt.Fprintln(w)
			continue
		}
		moves := p.LegalMoves(nil, tooTall)
		texts := make([]string, len(moves))
		for i, m := range moves {
			texts[i] = m.String()
		}
		fmt.Fprintln(w, strings.Join(texts, " "))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read standard input: %w", err)
	}
	if bad > 0 {
		return &exitError{code: 2, err: errors.New(count(bad, "bad line", "bad lines"))}
	}
	return nil
}

func runPerft(args []string, s stdio) error {
	fs := newFlags("perft", "perft --depth N [--fen FEN] [--divide] [--no-too-tall]\n\nCounts the move sequences of exactly N plies. The last line is\n\"Nodes searched: <N>\"; --divide first prints each move's count.", s)
	depth := fs.Int("depth", 0, "the number of plies (1 or more)")
	fen := fs.String("fen", env.StartFEN, "the position (FEN)")
	divide := fs.Bool("divide", false, "print the count after each legal move first")
	noTooTall := fs.Bool("no-too-tall", false, "turn the too-tall rule off")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *depth < 1 {
		return usageErr("--depth must be 1 or more")
	}
	p, err := env.ParseFEN(*fen)
	if err != nil {
		return usageErr("%v", err)
	}
	var total uint64
	if *divide {
		for _, d := range env.Divide(p, *depth, !*noTooTall) {
			fmt.Fprintf(s.out, "%v: %d\n", d.Move, d.Nodes)
			total += d.Nodes
		}
		fmt.Fprintln(s.out)
	} else {
		total = env.Perft(p, *depth, !*noTooTall)
	}
	fmt.Fprintf(s.out, "Nodes searched: %d\n", total)
	return nil
}

func runShow(args []string, s stdio) error {
	fs := newFlags("show", "show [--fen FEN]\n\nDraws the position: rank 6 on top, each stack listed from the top piece down.", s)
	fen := fs.String("fen", env.StartFEN, "the position (FEN)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	p, err := env.ParseFEN(*fen)
	if err != nil {
		return usageErr("%v", err)
	}
	fmt.Fprint(s.out, p.Render())
	fmt.Fprintf(s.out, "legal moves: %d\n", p.CountMoves(true))
	return nil
}
