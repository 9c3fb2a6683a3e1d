package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
)

func runBestmove(args []string, s stdio) error {
	fs := newFlags("bestmove", `bestmove --fen FEN [--moves "M1 M2 ..."] --player SPEC [--seed S] [--no-too-tall]

Prints the player's move for the position in notation on the first line,
then what the player knows about it, a "key: value" a line: value (the
expected outcome, -1 to 1, for the side of value_for, the mover: red or
blue), visits and simulations (MCTS
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
	now := g.Position()
	_, err = io.WriteString(s.out, describeDecision(d, now.SideToMove()))
	return err
}

// describeDecision writes a decision of mover's as bestmove prints it:
// the move, then one "key: value" line for each thing the player knows,
// the value followed by the side it is for.
func describeDecision(d mcts.Decision, mover env.Color) string {
	var b strings.Builder
	fmt.Fprintln(&b, d.Move)
	if !math.IsNaN(d.Value) {
		fmt.Fprintf(&b, "value: %.4f\nvalue_for: %v\n", d.Value, mover)
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
