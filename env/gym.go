package env

import (
	"errors"
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

// Validate reports every setting out of range, each as a [*SettingError]
// keyed by its YAML key (rules.max_plies, rules.repetitions,
// opening_plies).
func (o Options) Validate() error {
	problems := o.Rules.problems("rules.")
	if o.OpeningPlies < 0 {
		problems = append(problems, &SettingError{"opening_plies", fmt.Sprintf("is %d: want 0 or more", o.OpeningPlies)})
	}
	return errors.Join(problems...)
}

// ResetOptions are the settings of one episode, the options of Gymnasium's
// reset(seed, options). The zero value starts from the start position,
// without random plies, under the environment's rules.
type ResetOptions struct {
	// FEN is the position the episode starts from (see [ParseFEN]); empty
	// for the start position. It must not be a finished game.
	FEN string
	// OpeningPlies is the number of uniformly random plies played from the
	// start, drawn from the seed (see [PlayOpening]).
	OpeningPlies int
	// Rules, if not nil, replace the environment's rules for this episode.
	Rules *Rules
}

// Info is the extra information of a reset or a step, as Gymnasium's info
// dictionary.
type Info struct {
	// Status is the game's status after the reset or the step.
	Status Status
	// Ply is the position's ply count: plies played since the start
	// position, or since the FEN the episode started from.
	Ply int
	// Repetitions is how many times the current position has occurred in
	// the episode, counting now (1 for a new position).
	Repetitions int
	// Move is the move the step's action stood for; the zero Move after a
	// reset.
	Move Move
	// Opening lists the random plies a reset played; nil after a step.
	Opening []Move
}

// Env is a gym-style reinforcement-learning environment for Death Stacks:
// both players act through it in turn, and each step's reward is for the
// player who moved. Observations are from the point of view of the side to
// move (see [EncodeObservation] and [ObservationSpace]); actions index the
// fixed action space (see [NumActions] and [ActionSpace]). [AEC] is the
// same environment seen per agent.
//
// Env is for Go programs that train or play through the Gymnasium-style
// interface, and the C library's environments are built on it; its
// Observation, LegalMask and Clone, like [Info], serve such programs.
type Env struct {
	opts Options
	game *Game
	// legal serves the fast path of buffers.go.
	legal legalCache
}

// NewEnv returns an environment at the start position.
func NewEnv(opts Options) (*Env, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	return &Env{opts: opts, game: NewGame(opts.Rules)}, nil
}

// openingStream is the PCG stream of the reset seed's generator.
const openingStream = 0x6465617468 // "death"

// Reset starts a new episode from the start position with the
// environment's rules and opening plies, drawn from seed, and returns its
// first observation: ResetWith(seed, ResetOptions{OpeningPlies:
// e.Options().OpeningPlies}), which cannot fail.
func (e *Env) Reset(seed uint64) ([]float32, Info) {
	return e.start(NewGame(e.opts.Rules), e.opts.OpeningPlies, seed)
}

// ResetWith starts a new episode as o says, the random plies drawn from
// seed, and returns its first observation. A bad FEN, a finished start
// position, negative opening plies or invalid rules return an error saying
// what is wrong and leave the environment unchanged.
func (e *Env) ResetWith(seed uint64, o ResetOptions) ([]float32, Info, error) {
	start, rules, err := e.episodeStart(o)
	if err != nil {
		return nil, Info{}, err
	}
	obs, info := e.start(NewGameFrom(start, rules), o.OpeningPlies, seed)
	return obs, info, nil
}

// episodeStart checks o and returns the position and rules an episode
// starts with.
func (e *Env) episodeStart(o ResetOptions) (Position, Rules, error) {
	rules := e.opts.Rules
	if o.Rules != nil {
		rules = *o.Rules
	}
	if err := rules.Validate(); err != nil {
		return Position{}, Rules{}, fmt.Errorf("reset: rules: %w", err)
	}
	if o.OpeningPlies < 0 {
		return Position{}, Rules{}, fmt.Errorf("reset: opening plies is %d: want 0 or more", o.OpeningPlies)
	}
	start := StartPosition()
	if o.FEN != "" {
		p, err := ParseFEN(o.FEN)
		if err != nil {
			return Position{}, Rules{}, fmt.Errorf("reset: %w", err)
		}
		start = p
	}
	if st := StatusOf(&start, rules, 1); st.Over() {
		return Position{}, Rules{}, fmt.Errorf("reset: fen %q: the game is already over (%v)", o.FEN, st)
	}
	return start, rules, nil
}

// start makes g, an ongoing game, the episode and plays its opening.
func (e *Env) start(g *Game, plies int, seed uint64) ([]float32, Info) {
	opening := PlayOpening(g, plies, rand.New(rand.NewPCG(seed, openingStream)))
	e.game = g
	info := e.info()
	info.Opening = opening
	return e.Observation(), info
}

// PlayOpening plays up to plies uniformly random moves in g, drawn from
// rng, passing over moves that would end the game, and returns the moves
// played. It stops early when every move would end the game. Environment
// resets, self-play and the arena all start their games with it.
func PlayOpening(g *Game, plies int, rng *rand.Rand) []Move {
	var moves []Move
	for len(moves) < plies {
		legal := g.LegalMoves(nil)
		rng.Shuffle(len(legal), func(i, j int) { legal[i], legal[j] = legal[j], legal[i] })
		played := false
		for _, m := range legal {
			if err := g.Play(m); err != nil {
				continue // cannot happen: the move was generated here
			}
			if !g.Status().Over() {
				played = true
				moves = append(moves, m)
				break
			}
			_ = g.Undo() // the move ends the game: try another
		}
		if !played {
			break
		}
	}
	return moves
}

// Step plays the move of an action index. The reward is +1 if the mover won,
// -1 if it lost (which the rules never allow on one's own move, but a
// variant could) and 0 otherwise (see [Status.Reward]); terminated is true
// when the game ended by the rules (a win, no stacks or a draw by
// repetition), truncated at the move limit. An illegal action, or a step
// after the episode ended, returns an error and changes nothing.
func (e *Env) Step(a Action) (obs []float32, reward float32, terminated, truncated bool, info Info, err error) {
	reward, info, err = e.play(a)
	if err != nil {
		return nil, 0, false, false, Info{}, err
	}
	return e.Observation(), reward, info.Status.Terminated(), info.Status.Truncated(), info, nil
}

// play is Step without the observation, which the per-agent view builds
// when an agent asks for it.
func (e *Env) play(a Action) (reward float32, info Info, err error) {
	mover := e.game.pos.SideToMove()
	m, err := e.playAction(a)
	if err != nil {
		return 0, Info{}, err
	}
	info = e.info()
	info.Move = m
	return info.Status.Reward(mover), info, nil
}

// info returns the Info of the current position.
func (e *Env) info() Info {
	return Info{Status: e.game.Status(), Ply: e.game.pos.Ply(), Repetitions: e.game.Repetitions()}
}

// Observation returns the observation of the current position.
func (e *Env) Observation() []float32 {
	obs := make([]float32, ObservationSize)
	p := e.game.Position()
	EncodeObservation(obs, &p, e.game.Rules(), e.game.Repetitions())
	return obs
}

// LegalMask returns the legal-action mask of the current position: all false
// once the episode has ended.
func (e *Env) LegalMask() []bool {
	mask := make([]bool, NumActions)
	if !e.game.Status().Over() {
		e.game.pos.legalMask(mask, e.game.Rules().TooTall)
	}
	return mask
}

// LegalActions returns the legal action indices of the current position.
func (e *Env) LegalActions() []Action {
	if e.game.Status().Over() {
		return nil
	}
	return e.game.pos.LegalActions(nil, e.game.Rules().TooTall)
}

// Game returns the game being played; changing it changes the environment.
func (e *Env) Game() *Game { return e.game }

// Options returns the environment's options. The rules of the current
// episode, which [ResetOptions] may have replaced, are Game().Rules().
func (e *Env) Options() Options { return e.opts }

// Clone returns an independent copy of the environment.
func (e *Env) Clone() *Env { return &Env{opts: e.opts, game: e.game.Clone()} }

// Render draws the current position as text, with the game's status.
func (e *Env) Render() string {
	p := e.game.Position()
	return p.Render() + "status: " + e.game.Status().String() + "\n"
}
