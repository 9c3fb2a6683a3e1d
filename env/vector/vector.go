// Package vector steps many Death Stacks environments ([env.Env]) in one
// call, into the caller's buffers, with Gymnasium's next-step auto-reset
// and, if given, an [Opponent] answering the agent inside each step. The
// C library's vector environments are built on it.
package vector

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/deathstacks/deathstacks/env"
)

// Vector is many environments stepped in one call, across the cores, with
// Gymnasium's next-step auto-reset: the step after an episode's end resets
// it (its action ignored, reward 0, not terminated). With an [Opponent],
// each environment's agent plays one colour and the opponent answers
// inside the step, so that every observation is the agent's turn and
// every reward the agent's; without one, both sides act through the step
// and the reward is the mover's, as [env.Env]'s.
//
// Observations, masks, rewards, end flags and infos are written into the
// caller's [Buffers]. A Vector's methods must not run alongside one
// another.
type Vector struct {
	opts Options
	envs []*env.Env
	// legal[i] is environment i's legal actions, kept for the next step's
	// check and for Sample.
	legal [][]env.Action
	// done[i] says that environment i's episode has ended: its next step
	// resets it.
	done []bool
	// seed is the last reset's seed; episodes[i] counts environment i's
	// episodes since.
	seed     uint64
	episodes []uint64
	rngs     []*rand.Rand
	// agents[i] is environment i's agent colour, opponents[i] its
	// opponent (nil without NewOpponent).
	agents    []env.Color
	opponents []Opponent
	// started says that Reset has been called.
	started bool
	// errs holds the errors of one pass over the environments, one each.
	errs []error
}

// Options configures a [Vector].
type Options struct {
	// Env is every environment's options.
	Env env.Options
	// NewOpponent, if not nil, makes an environment's opponent from a seed
	// derived from the reset's; nil for none. Reset makes new opponents
	// and Close closes them, those that are [io.Closer]s.
	NewOpponent func(seed uint64) (Opponent, error)
	// Agent is the agent's colour against an opponent.
	Agent AgentColors
	// OpponentWaits says that the opponents' moves wait on something
	// outside, such as a network server that batches their evaluations:
	// every environment then runs on a goroutine of its own, none on the
	// caller's, so that their waits overlap.
	OpponentWaits bool
}

// Opponent plays the other side of a [Vector]'s games.
type Opponent interface {
	// Reset tells the opponent that a new episode starts.
	Reset()
	// Move returns the opponent's move in g, an ongoing game where it is
	// to move. It must not change g.
	Move(g *env.Game) (env.Move, error)
}

// AgentColors says which colour a [Vector]'s agent plays against its
// opponent.
type AgentColors int

// The agent colours of a [Vector] with an opponent.
const (
	AgentRed AgentColors = iota
	AgentBlue
	// AgentAlternating plays Red in an environment's even episodes, Blue
	// in its odd ones.
	AgentAlternating
)

// Buffers are the caller's arrays of one [Vector] call, each for
// all environments, environment i's entries at i times the size of one;
// any may be nil to skip it.
type Buffers struct {
	Observations []float32 // env.ObservationSize values an environment
	Masks        []bool    // env.NumActions entries an environment
	Rewards      []float32 // one an environment
	Terminations []bool    // one an environment
	Truncations  []bool    // one an environment
	Infos        []int64   // InfoColumns values an environment
}

// The columns of an environment's row of [Buffers].Infos.
const (
	InfoStatus         = iota // the game's Status
	InfoPly                   // the position's ply
	InfoToMove                // the side to move's Color
	InfoAgent                 // the agent's Color: the side to move's without an opponent
	InfoEpisode               // the environment's episode, from 0 at Reset
	InfoOpponentAction        // the opponent's last action in the call, or -1
	InfoColumns               // the number of columns
)

// maxEnvs bounds the environments of a Vector.
const maxEnvs = 1 << 20

// New returns n environments, to be started by [Vector.Reset].
func New(n int, o Options) (*Vector, error) {
	if n < 1 || n > maxEnvs {
		return nil, fmt.Errorf("vector: %d environments: want 1 to %d", n, maxEnvs)
	}
	if o.Agent < AgentRed || o.Agent > AgentAlternating {
		return nil, fmt.Errorf("vector: agent colour %d: want 0 (red), 1 (blue) or 2 (alternate)", o.Agent)
	}
	v := &Vector{
		opts: o, envs: make([]*env.Env, n), legal: make([][]env.Action, n), done: make([]bool, n),
		episodes: make([]uint64, n), rngs: make([]*rand.Rand, n), agents: make([]env.Color, n), errs: make([]error, n),
	}
	for i := range v.envs {
		e, err := env.NewEnv(o.Env)
		if err != nil {
			return nil, err
		}
		v.envs[i] = e
		v.legal[i] = make([]env.Action, 0, 256)
	}
	if o.NewOpponent != nil {
		v.opponents = make([]Opponent, n)
	}
	return v, nil
}

// Len returns the number of environments.
func (v *Vector) Len() int { return len(v.envs) }

// Game returns environment i's game, for 0 <= i < Len(); it follows the
// environment's next episodes.
func (v *Vector) Game(i int) *env.Game { return v.envs[i].Game() }

// Close closes the opponents that are [io.Closer]s and forgets them all;
// Step then waits for a Reset, which makes new ones.
func (v *Vector) Close() error {
	var errs []error
	for i, p := range v.opponents {
		if c, ok := p.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
		v.opponents[i] = nil
	}
	v.started = false
	return errors.Join(errs...)
}

// opponentStream is the second number of an opponent's seed's derivation
// ([MixSeed] of the reset's seed, the environment and it).
const opponentStream = 1 << 63

// seedAll starts the seeds over from seed: episode counts, the samplers'
// generators and new opponents seeded from it.
func (v *Vector) seedAll(seed uint64) error {
	v.seed = seed
	if err := v.Close(); err != nil {
		return fmt.Errorf("opponent: %w", err)
	}
	for i := range v.envs {
		v.episodes[i] = 0
		v.rngs[i] = rand.New(rand.NewPCG(seed, uint64(i)))
		if v.opponents != nil {
			p, err := v.opts.NewOpponent(env.MixSeed(seed, uint64(i), opponentStream))
			if err != nil {
				return fmt.Errorf("opponent: %w", err)
			}
			v.opponents[i] = p
		}
	}
	return nil
}

// check reports an array of the wrong size for n environments.
func (b *Buffers) check(n int) error {
	var errs []error
	for _, c := range []struct {
		what      string
		nil       bool
		len, want int
	}{
		{"observations", b.Observations == nil, len(b.Observations), n * env.ObservationSize},
		{"masks", b.Masks == nil, len(b.Masks), n * env.NumActions},
		{"rewards", b.Rewards == nil, len(b.Rewards), n},
		{"terminations", b.Terminations == nil, len(b.Terminations), n},
		{"truncations", b.Truncations == nil, len(b.Truncations), n},
		{"infos", b.Infos == nil, len(b.Infos), n * InfoColumns},
	} {
		if !c.nil && c.len != c.want {
			errs = append(errs, fmt.Errorf("%s has %d entries, want %d", c.what, c.len, c.want))
		}
	}
	return errors.Join(errs...)
}

// row returns environment i's part of a buffer of n entries per
// environment, nil for a nil buffer.
func row[T any](buf []T, i, n int) []T {
	if buf == nil {
		return nil
	}
	return buf[i*n : (i+1)*n]
}

// Reset starts every environment's episode over, with the seeds and
// opponents renewed from seed: environment i's episode k starts from
// MixSeed(seed, i, k), its opponent is made from MixSeed(seed, i, 1<<63)
// and Sample draws its actions from a generator of seed and i.
func (v *Vector) Reset(seed uint64, b *Buffers) error {
	if err := b.check(len(v.envs)); err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	if err := v.seedAll(seed); err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	v.started = true
	return v.parallel(func(i int) error {
		opp, err := v.start(i)
		if err != nil {
			return err
		}
		v.write(i, b, 0, opp)
		return nil
	})
}

// Step plays actions[i] in every environment whose episode goes on and
// resets those whose episode has ended. An illegal action in any
// environment returns an error naming it and changes nothing.
func (v *Vector) Step(actions []env.Action, b *Buffers) error {
	n := len(v.envs)
	if !v.started {
		return errors.New("step: call reset first")
	}
	if len(actions) != n {
		return fmt.Errorf("step: %d actions for %d environments", len(actions), n)
	}
	if err := b.check(n); err != nil {
		return fmt.Errorf("step: %w", err)
	}
	// Every action is checked before any is played, here: a scan of a
	// short list costs less than spreading the checks over the cores.
	clear(v.errs)
	for i, a := range actions {
		if !v.done[i] {
			v.errs[i] = v.checkAction(i, a)
		}
	}
	if err := firstErrors(v.errs); err != nil {
		return fmt.Errorf("step: %w", err)
	}
	return v.parallel(func(i int) error { return v.stepOne(i, actions[i], b) })
}

// stepOne is Step's work for environment i.
func (v *Vector) stepOne(i int, a env.Action, b *Buffers) error {
	if v.done[i] {
		opp, err := v.start(i)
		if err != nil {
			return err
		}
		v.write(i, b, 0, opp)
		return nil
	}
	e := v.envs[i]
	reward, _, _, err := e.StepInto(a, nil, nil)
	if err != nil {
		return fmt.Errorf("environment %d: %w", i, err) // checked by Step: cannot happen
	}
	opp := env.Action(-1)
	if v.opponents != nil {
		if opp, err = v.answer(i); err != nil {
			return err
		}
		reward = e.Game().Status().Reward(v.agents[i])
	}
	v.done[i] = e.Game().Status().Over()
	v.write(i, b, reward, opp)
	return nil
}

// Sample writes a uniformly random legal action of each environment into
// actions, drawn from its own generator (0 for an environment about to
// reset, whose action is ignored).
func (v *Vector) Sample(actions []env.Action) error {
	if len(actions) != len(v.envs) {
		return fmt.Errorf("sample: %d actions for %d environments", len(actions), len(v.envs))
	}
	for i, legal := range v.legal {
		actions[i] = 0
		if !v.done[i] && len(legal) > 0 {
			actions[i] = legal[v.rngs[i].IntN(len(legal))]
		}
	}
	return nil
}

// parallel runs f(i) for every environment, on one goroutine per core or
// per environment, and returns the errors of the environments that failed.
func (v *Vector) parallel(f func(i int) error) error {
	n := len(v.envs)
	workers := min(n, runtime.GOMAXPROCS(0))
	if v.opts.OpponentWaits {
		workers = n
	}
	errs := v.errs
	clear(errs)
	share := func(w int) {
		for i := w * n / workers; i < (w+1)*n/workers; i++ {
			errs[i] = recovered(f, i)
		}
	}
	// The calling goroutine takes the first share: working rather than
	// waiting saves handing its processor to another thread and back (a
	// goroutine locked to a thread, as a call from C is, pays for that
	// most). Not so when each share blocks many times, waiting on the
	// opponents' server: there the caller would only wait, and handing
	// every share to a goroutine of its own is faster.
	first := 1
	if v.opts.OpponentWaits {
		first = 0
	}
	var wg sync.WaitGroup
	for w := first; w < workers; w++ {
		wg.Go(func() { share(w) })
	}
	if first == 1 {
		share(0)
	}
	wg.Wait()
	return firstErrors(errs)
}

// recovered runs f(i) and turns a panic into its error: a panic on a
// worker goroutine would end the process.
func recovered(f func(i int) error, i int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("environment %d: internal error (please report): %v\n%s", i, r, debug.Stack())
		}
	}()
	return f(i)
}

// firstErrors joins the first three errors of errs (nil ones skipped) and
// counts the rest.
func firstErrors(errs []error) error {
	var out []error
	more := 0
	for _, err := range errs {
		switch {
		case err == nil:
		case len(out) < 3:
			out = append(out, err)
		default:
			more++
		}
	}
	if more > 0 {
		out = append(out, fmt.Errorf("and %d more", more))
	}
	return errors.Join(out...)
}

// start begins environment i's next episode and lets the opponent move
// until it is the agent's turn, returning the opponent's action (-1 for
// none). An episode the opponent's first reply ends is passed over for
// the next.
func (v *Vector) start(i int) (env.Action, error) {
	for range maxStarts - 1 {
		opp, err := v.startOnce(i)
		if err != nil || !v.envs[i].Game().Status().Over() {
			return opp, err
		}
	}
	opp, err := v.startOnce(i)
	v.done[i] = v.envs[i].Game().Status().Over() // the next step starts again
	return opp, err
}

// maxStarts bounds the episodes start passes over.
const maxStarts = 100

func (v *Vector) startOnce(i int) (env.Action, error) {
	e := v.envs[i]
	k := v.episodes[i]
	v.episodes[i]++
	v.done[i] = false
	o := env.ResetOptions{OpeningPlies: v.opts.Env.OpeningPlies}
	if _, err := e.ResetInto(env.MixSeed(v.seed, uint64(i), k), o, nil, nil); err != nil {
		return -1, fmt.Errorf("environment %d: %w", i, err)
	}
	if v.opponents == nil {
		return -1, nil
	}
	switch v.opts.Agent {
	case AgentRed:
		v.agents[i] = env.Red
	case AgentBlue:
		v.agents[i] = env.Blue
	default:
		v.agents[i] = env.Color(k % 2)
	}
	v.opponents[i].Reset()
	return v.answer(i)
}

// answer plays the opponent's moves in environment i until it is the
// agent's turn or the game is over, and returns the last action it played
// (-1 for none).
func (v *Vector) answer(i int) (env.Action, error) {
	e := v.envs[i]
	g := e.Game()
	last := env.Action(-1)
	for !g.Status().Over() && sideToMove(g) != v.agents[i] {
		m, err := v.opponents[i].Move(g)
		if err != nil {
			return last, fmt.Errorf("environment %d: opponent: %w", i, err)
		}
		a, err := env.ActionOf(m)
		if err == nil {
			_, _, _, err = e.StepInto(a, nil, nil)
		}
		if err != nil {
			return last, fmt.Errorf("environment %d: opponent: %w", i, err)
		}
		last = a
	}
	return last, nil
}

// write delivers environment i's observation, mask, reward, end flags and
// info into the caller's buffers, and keeps its legal actions.
func (v *Vector) write(i int, b *Buffers, reward float32, opponent env.Action) {
	e := v.envs[i]
	g := e.Game()
	st := g.Status()
	_ = e.ObserveInto(row(b.Observations, i, env.ObservationSize), row(b.Masks, i, env.NumActions)) // the sizes are checked
	v.legal[i] = e.AppendLegalActions(v.legal[i][:0])
	if b.Rewards != nil {
		b.Rewards[i] = reward
	}
	if b.Terminations != nil {
		b.Terminations[i] = st.Terminated()
	}
	if b.Truncations != nil {
		b.Truncations[i] = st.Truncated()
	}
	if inf := row(b.Infos, i, InfoColumns); inf != nil {
		p := g.Position()
		inf[InfoStatus], inf[InfoPly], inf[InfoToMove] = int64(st), int64(p.Ply()), int64(p.SideToMove())
		inf[InfoAgent], inf[InfoEpisode] = int64(v.agents[i]), int64(v.episodes[i]-1)
		inf[InfoOpponentAction] = int64(opponent)
		if v.opponents == nil {
			inf[InfoAgent] = int64(p.SideToMove())
		}
	}
}

// checkAction reports whether a is legal in environment i: one of the
// legal actions write kept.
func (v *Vector) checkAction(i int, a env.Action) error {
	if a < 0 || a >= env.NumActions {
		return fmt.Errorf("environment %d: action %d: out of range [0, %d)", i, a, env.NumActions)
	}
	if slices.Contains(v.legal[i], a) {
		return nil
	}
	m, err := env.MoveOf(a)
	if err == nil {
		g := v.envs[i].Game()
		p := g.Position()
		err = p.CheckMove(m, g.Rules().TooTall)
	}
	if err == nil { // cannot happen: the legal actions are the position's
		err = errors.New("not among the legal actions")
	}
	return fmt.Errorf("environment %d: action %d: %w", i, a, err)
}

// sideToMove returns the colour to move in g.
func sideToMove(g *env.Game) env.Color {
	p := g.Position()
	return p.SideToMove()
}
