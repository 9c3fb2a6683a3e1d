package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
)

// SearchSettings are what a [Search] benchmark measures, and how long.
type SearchSettings struct {
	// Duration is the measuring time of a line, after a warm-up.
	Duration time.Duration
	// Simulations is the simulations of a PUCT and a UCT search.
	Simulations int
	// Depth is the alpha-beta depth.
	Depth int
	// Seed seeds the positions and the players.
	Seed uint64
}

// Search is one benchmark of the searches, a line each: PUCT with the
// uniform evaluator, UCT with rollouts and alpha-beta, on the same games.
type Search struct {
	lines []searchLine
	games []*env.Game
	dur   time.Duration
}

// searchLine is one player measured and how its decisions count.
type searchLine struct {
	label string
	count func(mcts.Decision) int
	p     mcts.Player
}

// NewSearch returns a benchmark of the searches with settings s.
func NewSearch(s SearchSettings) (*Search, error) {
	cfg := mcts.DefaultConfig()
	cfg.Simulations, cfg.ReuseTree = s.Simulations, false
	puct, err := mcts.NewPUCTPlayer(mcts.UniformEvaluator{}, cfg, s.Seed)
	if err != nil {
		return nil, err
	}
	uctCfg := mcts.DefaultUCTConfig()
	uctCfg.Simulations = s.Simulations
	uct, err := mcts.NewUCTPlayer(uctCfg, s.Seed)
	if err != nil {
		return nil, err
	}
	ab, err := players.NewAlphaBetaPlayer(players.AlphaBetaConfig{Depth: s.Depth}, s.Seed)
	if err != nil {
		return nil, err
	}
	sims := func(d mcts.Decision) int { return d.Simulations }
	return &Search{
		lines: []searchLine{
			{"puct sims/s", sims, puct},
			{"uct-rollout sims/s", sims, uct},
			{"alphabeta nodes/s", func(d mcts.Decision) int { return int(d.Nodes) }, ab},
		},
		games: randomGames(rand.New(rand.NewPCG(s.Seed, 1)), 16),
		dur:   s.Duration,
	}, nil
}

// Lines is the number of lines the benchmark measures.
func (b *Search) Lines() int { return len(b.lines) }

// Write measures the lines in turn and writes each to out as
// "label=rate", and returns the number of lines written. An end of ctx
// stops it, dropping the line in progress, with ctx's error.
func (b *Search) Write(ctx context.Context, out io.Writer) (int, error) {
	for i, l := range b.lines {
		next := 0
		rate, err := Measure(ctx, b.dur, func() (int, error) {
			g := b.games[next%len(b.games)]
			next++
			d, err := l.p.Choose(g)
			return l.count(d), err
		})
		if err := ctx.Err(); err != nil {
			return i, err
		}
		if err != nil {
			return i, fmt.Errorf("%s: %w", l.label, err)
		}
		fmt.Fprintf(out, "%s=%.0f\n", l.label, rate)
	}
	return len(b.lines), nil
}

// randomGames returns n games of seeded random play, ongoing, cut at plies
// spread from the opening to the middle game.
func randomGames(rng *rand.Rand, n int) []*env.Game {
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
