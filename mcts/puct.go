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
// and Config.FinalTemperature from then on.
func (p *PUCTPlayer) Choose(g *env.Game) (Decision, error) {
	temp := p.cfg.FinalTemperature
	if pos := g.Position(); pos.Ply() < p.cfg.TemperaturePlies {
		temp = p.cfg.Temperature
	}
	return p.s.run(g, temp)
}

// ChooseSimulations is Choose with a budget of sims simulations instead of
// Config.Simulations (Config.Time still applies): the cheap searches of
// playout cap randomization, which self-play plays but does not train on.
// The tree is kept between both kinds of search, as Choose keeps it.
func (p *PUCTPlayer) ChooseSimulations(g *env.Game, sims int) (Decision, error) {
	if sims < 1 {
		return Decision{}, fmt.Errorf("search: %d simulations: want 1 or more", sims)
	}
	full := p.s.cfg.Simulations
	p.s.cfg.Simulations = sims
	defer func() { p.s.cfg.Simulations = full }()
	return p.Choose(g)
}

// Reset drops the search tree, as before a new game. Choose also starts a
// new tree by itself whenever g is not the game of the previous call.
func (p *PUCTPlayer) Reset() { p.s.reset() }

// Config returns the player's search settings.
func (p *PUCTPlayer) Config() Config { return p.cfg }

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

// UCTConfig sets up the UCT baseline.
type UCTConfig struct {
	// Simulations is the number of simulations per move.
	Simulations int `yaml:"simulations"`
	// Exploration is the UCB1 constant c of Q + c * sqrt(ln N / n).
	Exploration float64 `yaml:"exploration"`
	// RolloutDepth is the number of uniformly random plies of a rollout
	// before it stops and scores the position by its material count, squashed
	// to (-1, 1) by tanh(score/50). Random play almost never ends a game,
	// so rollouts must be cut off.
	RolloutDepth int `yaml:"rollout_depth"`
}

// DefaultUCTConfig returns 1000 simulations, c = 1 and rollouts of 20
// plies.
func DefaultUCTConfig() UCTConfig {
	return UCTConfig{Simulations: 1000, Exploration: 1, RolloutDepth: 20}
}

// Validate reports the first setting out of range, naming its YAML key.
func (c UCTConfig) Validate() error {
	switch {
	case c.Simulations < 1:
		return fmt.Errorf("uct config: simulations is %d: want 1 or more", c.Simulations)
	case !finite(c.Exploration) || c.Exploration < 0:
		return fmt.Errorf("uct config: exploration is %v: want 0 or more", c.Exploration)
	case c.RolloutDepth < 0:
		return fmt.Errorf("uct config: rollout_depth is %d: want 0 (material count only) or more", c.RolloutDepth)
	}
	return nil
}

// UCTPlayer is the classical Monte-Carlo baseline: UCT (UCB1 selection,
// every child tried once before any is tried twice) with random rollouts
// cut off after RolloutDepth plies. Rollouts ignore draws by repetition.
// It plays the most visited move and keeps its tree between moves.
type UCTPlayer struct {
	s *search
}

// NewUCTPlayer returns a UCT player; the seed drives the rollouts.
func NewUCTPlayer(cfg UCTConfig, seed uint64) (*UCTPlayer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rng := newRand(seed)
	sc := Config{Simulations: cfg.Simulations, BatchSize: 1, ReuseTree: true}
	s := newSearch(sc, &rolloutLeaves{rng: rng, depth: cfg.RolloutDepth}, rng)
	s.ucb, s.ucbC = true, cfg.Exploration
	return &UCTPlayer{s: s}, nil
}

// Choose implements [Player].
func (p *UCTPlayer) Choose(g *env.Game) (Decision, error) { return p.s.run(g, 0) }

// rolloutLeaves values leaves by random rollouts; priors are uniform (UCB1
// does not read them).
type rolloutLeaves struct {
	rng   *rand.Rand
	depth int
	moves []env.Move
}

func (e *rolloutLeaves) evaluate(b *leafBatch) error {
	for i := range b.pos {
		fillUniform(b.priors[i])
		b.values[i] = float32(e.rollout(b.pos[i], b.rules))
	}
	return nil
}

// rollout plays random moves from p, an unfinished position, and returns
// the outcome for p's side to move: +-1 for a win or loss within the depth,
// 0 at the move limit, else the squashed material count of the last position.
func (e *rolloutLeaves) rollout(p env.Position, rules env.Rules) float64 {
	side := p.SideToMove()
	for range e.depth {
		if rules.MaxPlies > 0 && p.Ply() >= rules.MaxPlies {
			return 0
		}
		e.moves = p.LegalMoves(e.moves[:0], rules.TooTall)
		p.Apply(e.moves[e.rng.IntN(len(e.moves))])
		if w, ok := p.Winner(); ok {
			if w == side {
				return 1
			}
			return -1
		}
	}
	return env.MaterialValue(p.Material(side))
}
