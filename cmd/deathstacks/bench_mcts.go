package main

import (
	"fmt"
	"github.com/deathstacks/deathstacks/configs"
	"math/rand/v2"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
)

func runBenchMCTS(args []string, s stdio) error {
	fs := newFlags("bench mcts", `bench mcts [--seconds S] [--simulations N] [--depth D]

Measures the searches on positions from seeded random games, one line each:
  puct sims/s=<N>          PUCT with the uniform evaluator: the tree's own cost
  uct-rollout sims/s=<N>   the UCT baseline with 20-ply random rollouts
  alphabeta nodes/s=<N>    alpha-beta to depth D
Each line runs for --seconds on one goroutine; run with GOMAXPROCS=1 to
measure one core. Ctrl-C (or SIGTERM) stops it, dropping the line in
progress.`, s)
	seconds := fs.Float64("seconds", 2, "measuring time per line")
	sims := simulationsFlag(fs, 800, "simulations per PUCT and UCT search")
	depth := fs.Int("depth", 4, "alpha-beta depth")
	seed := fs.Uint64("seed", 1, "seed of the positions and players")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var ch configs.Checker
	ch.Check(*seconds > 0, "seconds", "is %v: want more than 0", *seconds)
	ch.AtLeast("simulations", *sims, 1)
	ch.AtLeast("depth", *depth, 1)
	if err := flagErr(ch.Err(), map[string]string{"seconds": "seconds", "simulations": givenName(fs, "simulations"), "depth": "depth"}); err != nil {
		return err
	}
	dur := time.Duration(*seconds * float64(time.Second))
	games := benchGames(rand.New(rand.NewPCG(*seed, 1)), 16)

	cfg := mcts.DefaultConfig()
	cfg.Simulations, cfg.ReuseTree = *sims, false
	puct, err := mcts.NewPUCTPlayer(mcts.UniformEvaluator{}, cfg, *seed)
	if err != nil {
		return err
	}
	uctCfg := mcts.DefaultUCTConfig()
	uctCfg.Simulations = *sims
	uct, err := mcts.NewUCTPlayer(uctCfg, *seed)
	if err != nil {
		return err
	}
	ab, err := players.NewAlphaBetaPlayer(players.AlphaBetaConfig{Depth: *depth}, *seed)
	if err != nil {
		return err
	}
	lines := []struct {
		label string
		count func(mcts.Decision) int
		p     mcts.Player
	}{
		{"puct sims/s", func(d mcts.Decision) int { return d.Simulations }, puct},
		{"uct-rollout sims/s", func(d mcts.Decision) int { return d.Simulations }, uct},
		{"alphabeta nodes/s", func(d mcts.Decision) int { return int(d.Nodes) }, ab},
	}
	ctx, release := onStop(s, "the line in progress is dropped")
	defer release()
	for i, l := range lines {
		next := 0
		rate, err := measure(ctx, dur, func() (int, error) {
			g := games[next%len(games)]
			next++
			d, err := l.p.Choose(g)
			return l.count(d), err
		})
		if ctx.Err() != nil {
			return stoppedError(ctx, ofTotal(i, len(lines), "line", "lines"), "")
		}
		if err != nil {
			return fmt.Errorf("%s: %w", l.label, err)
		}
		fmt.Fprintf(s.out, "%s=%.0f\n", l.label, rate)
	}
	return nil
}

// benchGames returns n games of seeded random play, ongoing, cut at plies
// spread from the opening to the middle game.
func benchGames(rng *rand.Rand, n int) []*env.Game {
	var games []*env.Game
	for len(games) < n {
		g := env.NewGame(env.DefaultRules())
		plies := 4 * len(games)
		for i := 0; i < plies && !g.Status().Over(); i++ {
			moves := g.LegalMoves(nil)
			if g.Play(moves[rng.IntN(len(moves))]) != nil {
				break // cannot happen for a generated move
			}
		}
		if !g.Status().Over() {
			games = append(games, g)
		}
	}
	return games
}
