package main

import (
	"time"

	"github.com/deathstacks/deathstacks/cmd/deathstacks/internal/bench"
	"github.com/deathstacks/deathstacks/configs"
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
	b, err := bench.NewSearch(bench.SearchSettings{
		Duration: time.Duration(*seconds * float64(time.Second)), Simulations: *sims, Depth: *depth, Seed: *seed,
	})
	if err != nil {
		return err
	}
	ctx, release := onStop(s, "the line in progress is dropped")
	defer release()
	written, err := b.Write(ctx, s.out)
	if ctx.Err() != nil {
		return stoppedError(ctx, ofTotal(written, b.Lines(), "line", "lines"), "")
	}
	return err
}
