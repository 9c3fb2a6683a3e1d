package mcts

import (
	"fmt"
	"math/rand/v2"

	"github.com/deathstacks/deathstacks/env"
)

// PUCTPlayer chooses moves by PUCT search guided by an [Evaluator]: the
// AlphaZero player when the evaluator is a network. It keeps its tree
// between moves of one game (see Config.ReuseTree) and is not safe for
// concurrent use; give every game its own player, and let many players
// share one concurrency-safe evaluator.
type PUCTPlayer struct {
	s   *search
	cfg Config
}

// NewPUCTPlayer returns a PUCT player. The seed drives the root noise and
// the move choice at a temperature above 0.
func NewPUCTPlayer(eval Evaluator, cfg Config, seed uint64) (*PUCTPlayer, error) {
	if eval == nil {
		return nil, fmt.Errorf("puct player: no evaluator")
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("search config: %w", err)
	}
	rng := newRand(seed)
	return &PUCTPlayer{s: newSearch(cfg, &networkLeaves{eval: eval}, rng), cfg: cfg}, nil
}

// Choose searches the current position of g and returns the chosen move
// with the root value, the visits of every legal root move (the training
// target), the principal variation and the number of positions in the tree.
// The temperature is Config.Temperature before ply Config.TemperaturePlies
// and from ply Config.LateTemperaturePly on (when set),
// Config.FinalTemperature in between.
func (p *PUCTPlayer) Choose(g *env.Game) (Decision, error) { return p.choose(g, p.cfg) }

// ChooseSimulations is Choose with a budget of sims simulations instead of
// Config.Simulations (Config.Time still applies): the cheap searches of
// playout cap randomization, which self-play plays but does not train on.
// The tree is kept between both kinds of search, as Choose keeps it, and
// the root's win search gets the same share of its positions as of the
// simulations (see [Config.WithSimulations]).
func (p *PUCTPlayer) ChooseSimulations(g *env.Game, sims int) (Decision, error) {
	if sims < 1 {
		return Decision{}, fmt.Errorf("search: %d simulations: want 1 or more", sims)
	}
	return p.choose(g, p.cfg.WithSimulations(sims))
}

// choose searches the current position of g with the settings cfg, the
// player's own or their variant for one search.
func (p *PUCTPlayer) choose(g *env.Game, cfg Config) (Decision, error) {
	pos := g.Position()
	temp, ply := cfg.FinalTemperature, pos.Ply()
	if late := cfg.LateTemperaturePly; ply < cfg.TemperaturePlies || (late > 0 && ply >= late) {
		temp = cfg.Temperature
	}
	return p.s.run(g, cfg, temp)
}

// Reset drops the search tree, as before a new game. Choose also starts a
// new tree by itself whenever g is not the game of the previous call.
func (p *PUCTPlayer) Reset() { p.s.reset() }

// newRand returns the generator of a seeded player.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x6d637473)) // "mcts"
}

// UniformEvaluator gives every legal move the same prior and every
// position the value 0, so a search guided by it measures the tree's own
// overhead and works as a network-free test double. It is safe for
// concurrent use.
type UniformEvaluator struct{}

// Evaluate implements [Evaluator].
func (UniformEvaluator) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	for i := range values {
		fillUniform(priors[i])
		values[i] = 0
	}
	return nil
}

// fillUniform sets every entry of p to 1/len(p).
func fillUniform(p []float32) {
	u := 1 / float32(len(p))
	for j := range p {
		p[j] = u
	}
}
