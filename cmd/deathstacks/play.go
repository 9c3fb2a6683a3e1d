package main

import (
	"bufio"
	"os"

	"github.com/deathstacks/deathstacks/cmd/deathstacks/internal/play"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/players"
)

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
	sess := &play.Session{
		Game:   env.NewGameFrom(start, rules),
		Human:  humanColor,
		Engine: engine,
		Hinter: hinter,
		In:     bufio.NewScanner(s.in),
		Out:    s.out,
		Color:  isTerminal(s.out),
		Echo:   !isTerminal(s.in),
	}
	return sess.Run()
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
