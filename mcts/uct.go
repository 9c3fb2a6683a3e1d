package mcts

import (
	"math"
	"math/rand/v2"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/env"
)

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

// uctSettings lists every field of UCTConfig once, as [Config]'s table
// does the search's: its YAML key is its key in "mcts:" player specs, and
// the spec names of earlier versions (sims, c, depth) are its aliases.
var uctSettings = configs.NewTable("UCT setting", []configs.Field[UCTConfig]{
	{Setting: Setting{Aliases: []string{"sims"}, Help: "simulations per move"},
		Ptr: func(c *UCTConfig) any { return &c.Simulations }, Lo: 1, Hi: math.MaxInt32, Want: "1 or more"},
	{Setting: Setting{Aliases: []string{"c"}, Help: "UCB1 exploration constant"},
		Ptr: func(c *UCTConfig) any { return &c.Exploration }, Hi: math.Inf(1), Want: "0 or more"},
	{Setting: Setting{Aliases: []string{"depth"}, Help: "rollout plies before the material count"},
		Ptr: func(c *UCTConfig) any { return &c.RolloutDepth }, Hi: 10000, Want: "0 (material count only) to 10000"},
})

// UCTSettings lists the UCT baseline's settings in the order of
// [UCTConfig]'s fields.
func UCTSettings() []Setting { return uctSettings.Settings() }

// Set parses text as the value of the setting called key (or an alias)
// and sets it, checking its range, as [Config.Set] does.
func (c *UCTConfig) Set(key, text string) error { return uctSettings.Set(c, key, text) }

// Get returns the value of the setting called key (or an alias) in the
// form Set reads, or "" for no setting.
func (c UCTConfig) Get(key string) string { return uctSettings.Get(c, key) }

// Validate reports every setting out of range, each as a
// [*configs.FieldError] naming its YAML key.
func (c UCTConfig) Validate() error {
	var ch configs.Checker
	uctSettings.Check(&ch, c)
	return ch.Err()
}

// UCTPlayer is the classical Monte-Carlo baseline: UCT (UCB1 selection,
// every child tried once before any is tried twice) with random rollouts
// cut off after RolloutDepth plies. Rollouts ignore draws by repetition.
// It plays the most visited move and keeps its tree between moves.
type UCTPlayer struct {
	s   *search
	cfg Config
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
	return &UCTPlayer{s: s, cfg: sc}, nil
}

// Choose implements [Player].
func (p *UCTPlayer) Choose(g *env.Game) (Decision, error) { return p.s.run(g, p.cfg, 0) }

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
