package env

import (
	"fmt"
	"math/rand/v2"
)

// Options configures an [Env]: the rules, plus how episodes start.
type Options struct {
	Rules Rules `yaml:"rules"`
	// OpeningPlies is the number of uniformly random plies played after
	// Reset, drawn from the reset seed, to vary the start; 0 starts every
	// episode from the start position.
	OpeningPlies int `yaml:"opening_plies"`
}

// DefaultOptions returns the default rules and no random opening.
func DefaultOptions() Options { return Options{Rules: DefaultRules()} }

// Validate reports an error for a setting out of range.
func (o Options) Validate() error {
	if err := o.Rules.Validate(); err != nil {
		return err
	}
	if o.OpeningPlies < 0 {
		return fmt.Errorf("options: opening_plies is %d: want 0 or more", o.OpeningPlies)
	}
	return nil
}

// StepInfo is the extra information of one [Env.Step].
type StepInfo struct {
	Move   Move   // the move the action stood for
	Status Status // the game's status after the move
}

// Env is a gym-style reinforcement-learning environment for Death Stacks:
// both players act through it in turn, and each step's reward is for the
// player who moved. Observations are from the point of view of the side to
// move (see [EncodeObservation]); actions index the fixed action space (see
// [NumActions]).
type Env struct {
	opts Options
	game *Game
}

// NewEnv returns an environment at the start position.
func NewEnv(opts Options) (*Env, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	return &Env{opts: opts, game: NewGame(opts.Rules)}, nil
}

// Reset starts a new episode and returns its first observation. The seed
// drives the random opening plies, if any.
func (e *Env) Reset(seed uint64) []float32 {
	e.game = NewGame(e.opts.Rules)
	rng := rand.New(rand.NewPCG(seed, 0x6465617468))
	var buf [256]Move
	for i := 0; i < e.opts.OpeningPlies && !e.game.Status().Over(); i++ {
		moves := e.game.LegalMoves(buf[:0])
		_ = e.game.Play(moves[rng.IntN(len(moves))])
	}
	return e.Observation()
}

// Step plays the move of an action index. The reward is +1 if the mover won,
// -1 if it lost (which the rules never allow on one's own move, but a
// variant could) and 0 otherwise; terminated is true on a win or a draw by
// repetition, truncated at the move limit. An illegal action, or a step
// after the episode ended, returns an error and changes nothing.
func (e *Env) Step(a Action) (obs []float32, reward float32, terminated, truncated bool, info StepInfo, err error) {
	m, err := MoveOf(a)
	if err != nil {
		return nil, 0, false, false, StepInfo{}, fmt.Errorf("step: %w", err)
	}
	mover := e.game.pos.SideToMove()
	if err := e.game.Play(m); err != nil {
		return nil, 0, false, false, StepInfo{}, fmt.Errorf("step: action %d: %w", int(a), err)
	}
	st := e.game.Status()
	if w, ok := st.Winner(); ok {
		reward = -1
		if w == mover {
			reward = 1
		}
	}
	truncated = st.Truncated()
	terminated = st.Over() && !truncated
	return e.Observation(), reward, terminated, truncated, StepInfo{Move: m, Status: st}, nil
}

// Observation returns the observation of the current position.
func (e *Env) Observation() []float32 {
	obs := make([]float32, ObservationSize)
	p := e.game.Position()
	EncodeObservation(obs, &p, e.opts.Rules, e.game.Repetitions())
	return obs
}

// LegalMask returns the legal-action mask of the current position: all false
// once the episode has ended.
func (e *Env) LegalMask() []bool {
	mask := make([]bool, NumActions)
	if !e.game.Status().Over() {
		e.game.pos.LegalMask(mask, e.opts.Rules.TooTall)
	}
	return mask
}

// LegalActions returns the legal action indices of the current position.
func (e *Env) LegalActions() []Action {
	if e.game.Status().Over() {
		return nil
	}
	return e.game.pos.LegalActions(nil, e.opts.Rules.TooTall)
}

// Game returns the game being played; changing it changes the environment.
func (e *Env) Game() *Game { return e.game }

// Options returns the environment's options.
func (e *Env) Options() Options { return e.opts }

// Clone returns an independent copy of the environment.
func (e *Env) Clone() *Env { return &Env{opts: e.opts, game: e.game.Clone()} }

// Render draws the current position as text, with the game's status.
func (e *Env) Render() string {
	p := e.game.Position()
	return p.Render() + "status: " + e.game.Status().String() + "\n"
}
