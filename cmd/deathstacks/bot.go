package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
)

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
