package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/deathstacks/deathstacks/cmd/deathstacks/internal/bot"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/train/table"
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
	games := bot.NewGames(botRules(*noTooTall))
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
		return &exitError{code: 2, err: fmt.Errorf("%s without a move", table.Count(bad, "line", "lines"))}
	}
	return nil
}

// botMove returns the player's move for one line of the bot's input, in
// notation.
func botMove(player mcts.Player, games *bot.Games, line string) (string, error) {
	g, err := games.Next(line)
	if err != nil {
		return "", err
	}
	d, err := player.Choose(g)
	if err != nil {
		return "", err
	}
	return d.Move.String(), nil
}
