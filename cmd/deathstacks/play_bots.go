package main

import (
	"bufio"
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

// newModels returns the loader of az players' networks for one command;
// the caller closes it when done.
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
	fs := newFlags("bot", `bot --player SPEC [--seed S] [--no-too-tall]

Reads positions (FEN), one a line, from standard input and writes the
player's move for each in notation (a6-2-a4), one a line, flushed at once.
A finished position or a bad line gets "none" and a message on standard
error, and the bot goes on; the exit status is then 2. A FEN has no
history, so every position is taken as seen for the first time (no draw by
repetition can be foreseen) at ply 0 of a game.`, s)
	specText := fs.String("player", "", specFlagHelp)
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
	rules := botRules(*noTooTall)
	sc := bufio.NewScanner(s.in)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	bad := 0
	for line := 1; sc.Scan(); line++ {
		move, err := botMove(player, sc.Text(), rules)
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

// botMove returns the player's move for one FEN line, in notation.
func botMove(player mcts.Player, fen string, rules env.Rules) (string, error) {
	g, err := gameFromFEN(fen, rules)
	if err != nil {
		return "", err
	}
	d, err := player.Choose(g)
	if err != nil {
		return "", err
	}
	return d.Move.String(), nil
}

// gameFromFEN starts a game from a FEN, refusing a finished position.
func gameFromFEN(fen string, rules env.Rules) (*env.Game, error) {
	pos, err := env.ParseFEN(fen)
	if err != nil {
		return nil, err
	}
	g := env.NewGameFrom(pos, rules)
	if st := g.Status(); st.Over() {
		return nil, fmt.Errorf("no move: the game is over (%v)", st)
	}
	return g, nil
}

func runBestmove(args []string, s stdio) error {
	fs := newFlags("bestmove", `bestmove --fen FEN --player SPEC [--seed S] [--no-too-tall]

Prints the player's move for the position in notation on the first line,
then what the player knows about it, a "key: value" a line: value (the
expected outcome for the mover, -1 to 1), visits and simulations (MCTS
players), depth and score (alpha-beta and greedy), pv (the principal
variation) and nodes (positions searched). A finished position prints
"none". The position is taken as seen for the first time, at ply 0.`, s)
	fen := fs.String("fen", "", "the position (FEN)")
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
	g := env.NewGameFrom(pos, botRules(*noTooTall))
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
