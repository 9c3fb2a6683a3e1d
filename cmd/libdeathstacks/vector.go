package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
)

// vector is many environments stepped in one call, across the cores, with
// Gymnasium's next-step auto-reset: the step after an episode's end resets
// it (its action ignored, reward 0, not terminated). With an opponent, each
// environment's agent plays one colour and the opponent answers inside the
// step, so that every observation is the agent's turn and every reward the
// agent's; without one, both sides act through the step and the reward is
// the mover's, as env.Env's.
type vector struct {
	opts env.Options
	envs []*env.Env
	// legal[i] is environment i's legal actions, kept for sample.
	legal [][]env.Action
	// done[i] says that environment i's episode has ended: its next step
	// resets it.
	done []bool
	// seed is the last reset's seed; episodes[i] counts environment i's
	// episodes since.
	seed     uint64
	episodes []uint64
	rngs     []*rand.Rand

	// spec is the opponent's spec ("" for none), colour the agent's
	// colour (colourAlternate: Red on even episodes, Blue on odd ones),
	// agents[i] environment i's agent colour, opponents[i] its opponent.
	spec      string
	colour    int64
	agents    []env.Color
	opponents []mcts.Player
	// started says that reset has been called.
	started bool
	// perEnv runs one goroutine per environment rather than one per core,
	// none of them the caller's: for an opponent that waits on a network
	// server (waitsOnServer), so that its searches send their leaves to the
	// server together.
	perEnv bool
	// errs holds the errors of one pass over the environments, one each.
	errs []error
}

// The agent colours of a vector environment with an opponent.
const (
	colourRed = iota
	colourBlue
	colourAlternate
)

// Columns of the per-environment info rows.
const (
	infoStatus = iota
	infoPly
	infoToMove
	infoAgent
	infoEpisode
	infoOpponentAction // the opponent's last action in the step, or -1
	infoColumns
)

// close stops the opponents: external programs are killed and reaped.
func (v *vector) close() error { return v.closeOpponents() }

// closeOpponents closes the opponents that hold a resource.
func (v *vector) closeOpponents() error {
	var errs []error
	for _, p := range v.opponents {
		if p != nil {
			errs = append(errs, closePlayer(p))
		}
	}
	return errors.Join(errs...)
}

func newVector(n int64, opts env.Options, spec string, colour int64) (*vector, error) {
	if n < 1 || n > 1<<20 {
		return nil, fmt.Errorf("vector: %d environments: want 1 to %d", n, 1<<20)
	}
	if colour < colourRed || colour > colourAlternate {
		return nil, fmt.Errorf("vector: agent colour %d: want 0 (red), 1 (blue) or 2 (alternate)", colour)
	}
	v := &vector{opts: opts, spec: spec, colour: colour}
	for range n {
		e, err := env.NewEnv(opts)
		if err != nil {
			return nil, err
		}
		v.envs = append(v.envs, e)
		v.legal = append(v.legal, make([]env.Action, 0, 256))
	}
	v.done = make([]bool, n)
	v.errs = make([]error, n)
	v.episodes = make([]uint64, n)
	v.agents = make([]env.Color, n)
	v.rngs = make([]*rand.Rand, n)
	if spec != "" {
		s, err := players.ParseSpec(spec)
		if err != nil {
			return nil, err
		}
		v.perEnv = waitsOnServer(s)
		v.opponents = make([]mcts.Player, n)
	}
	if spec != "" {
		// Checked now; the opponents themselves are made by reset.
		if _, _, err := newPlayerOf(spec, 0); err != nil {
			return nil, fmt.Errorf("opponent: %w", err)
		}
	}
	return v, nil
}

// seedAll starts the seeds over from seed: episode counts, the samplers'
// generators and new opponents seeded from it.
func (v *vector) seedAll(seed uint64) error {
	v.seed = seed
	if err := v.closeOpponents(); err != nil {
		return fmt.Errorf("opponent: %w", err)
	}
	for i := range v.envs {
		v.episodes[i] = 0
		v.rngs[i] = rand.New(rand.NewPCG(seed, uint64(i)))
		if v.opponents != nil {
			p, _, err := newPlayerOf(v.spec, env.MixSeed(seed, uint64(i), 1<<63))
			if err != nil {
				return fmt.Errorf("opponent: %w", err)
			}
			v.opponents[i] = p
		}
	}
	return nil
}

// buffers are the caller's arrays of one call, for all environments.
type buffers struct {
	obs     []float32
	mask    []bool
	rewards []float32
	term    []bool
	trunc   []bool
	info    []int64
}

// check reports an array of the wrong size (nil arrays are skipped).
func (b *buffers) check(n int) error {
	return errors.Join(
		checkLen("observations", b.obs, n*env.ObservationSize),
		checkLen("masks", b.mask, n*env.NumActions),
		checkLen("rewards", b.rewards, n),
		checkLen("terminations", b.term, n),
		checkLen("truncations", b.trunc, n),
		checkLen("infos", b.info, n*infoColumns),
	)
}

// row returns environment i's part of a buffer of n entries per
// environment, nil for a nil buffer.
func row[T any](buf []T, i, n int) []T {
	if buf == nil {
		return nil
	}
	return buf[i*n : (i+1)*n]
}

// parallel runs f(i) for every environment, on one goroutine per core or
// per environment, and returns the errors of the environments that failed.
func (v *vector) parallel(f func(i int) error) error {
	n := len(v.envs)
	workers := min(n, runtime.GOMAXPROCS(0))
	if v.perEnv {
		workers = n
	}
	errs := v.errs
	clear(errs)
	share := func(w int) {
		for i := w * n / workers; i < (w+1)*n/workers; i++ {
			errs[i] = recovered(f, i)
		}
	}
	// The calling goroutine takes the first share: from C it is locked to
	// the caller's thread, and working rather than waiting saves handing
	// its processor to another thread and back. Not so when each share
	// blocks many times, an az opponent's search waiting on the network
	// server (see offThread): there the caller would only wait, and
	// handing every share to a goroutine of its own is faster.
	first := 1
	if v.perEnv {
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

// recovered runs f(i) and turns a panic into its error: the exported
// functions recover only the panics of their own goroutine, and one in a
// worker would end the caller's process.
func recovered(f func(i int) error, i int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("environment %d: %w", i, internalError(r))
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

// reset starts every environment's episode over, with the seeds and
// opponents renewed from seed.
func (v *vector) reset(seed uint64, b *buffers) error {
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

// start begins environment i's next episode and lets the opponent move
// until it is the agent's turn, returning the opponent's action (-1 for
// none). An episode the opponent's first reply ends is passed over for
// the next.
func (v *vector) start(i int) (int64, error) {
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

func (v *vector) startOnce(i int) (int64, error) {
	e := v.envs[i]
	k := v.episodes[i]
	v.episodes[i]++
	v.done[i] = false
	o := env.ResetOptions{OpeningPlies: v.opts.OpeningPlies}
	if _, err := e.ResetInto(env.MixSeed(v.seed, uint64(i), k), o, nil, nil); err != nil {
		return -1, fmt.Errorf("environment %d: %w", i, err)
	}
	if v.opponents == nil {
		return -1, nil
	}
	switch v.colour {
	case colourRed:
		v.agents[i] = env.Red
	case colourBlue:
		v.agents[i] = env.Blue
	default:
		v.agents[i] = env.Color(k % 2)
	}
	if r, ok := v.opponents[i].(interface{ Reset() }); ok {
		r.Reset()
	}
	return v.answer(i)
}

// answer plays the opponent's moves in environment i until it is the
// agent's turn or the game is over, and returns the last action it played
// (-1 for none).
func (v *vector) answer(i int) (int64, error) {
	e := v.envs[i]
	last := int64(-1)
	for !e.Game().Status().Over() {
		if p := e.Game().Position(); p.SideToMove() == v.agents[i] {
			break
		}
		d, err := v.opponents[i].Choose(e.Game())
		if err != nil {
			return last, fmt.Errorf("environment %d: opponent %s: %w", i, v.spec, err)
		}
		a, err := env.ActionOf(d.Move)
		if err == nil {
			_, _, _, err = e.StepInto(a, nil, nil)
		}
		if err != nil {
			return last, fmt.Errorf("environment %d: opponent %s: %w", i, v.spec, err)
		}
		last = int64(a)
	}
	return last, nil
}

// write delivers environment i's observation, mask, reward, end flags and
// info into the caller's buffers, and keeps its legal actions.
func (v *vector) write(i int, b *buffers, reward float32, opponent int64) {
	e := v.envs[i]
	g := e.Game()
	st := g.Status()
	_ = e.ObserveInto(row(b.obs, i, env.ObservationSize), row(b.mask, i, env.NumActions)) // the sizes are checked
	v.legal[i] = e.AppendLegalActions(v.legal[i][:0])
	if b.rewards != nil {
		b.rewards[i] = reward
	}
	if b.term != nil {
		b.term[i] = st.Over() && !st.Truncated()
	}
	if b.trunc != nil {
		b.trunc[i] = st.Truncated()
	}
	if inf := row(b.info, i, infoColumns); inf != nil {
		p := g.Position()
		inf[infoStatus], inf[infoPly], inf[infoToMove] = int64(st), int64(p.Ply()), int64(p.SideToMove())
		inf[infoAgent], inf[infoEpisode], inf[infoOpponentAction] = int64(v.agents[i]), int64(v.episodes[i]-1), opponent
		if v.opponents == nil {
			inf[infoAgent] = int64(p.SideToMove())
		}
	}
}

// step plays actions[i] in every environment whose episode goes on and
// resets those whose episode has ended. An illegal action in any
// environment returns an error naming it and changes nothing.
func (v *vector) step(actions []int64, b *buffers) error {
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
	return v.parallel(func(i int) error {
		if v.done[i] {
			opp, err := v.start(i)
			if err != nil {
				return err
			}
			v.write(i, b, 0, opp)
			return nil
		}
		e := v.envs[i]
		reward, _, _, err := e.StepInto(env.Action(actions[i]), nil, nil)
		if err != nil {
			return fmt.Errorf("environment %d: %w", i, err) // checked above: cannot happen
		}
		opp := int64(-1)
		if v.opponents != nil {
			if opp, err = v.answer(i); err != nil {
				return err
			}
			reward = e.Game().Status().Reward(v.agents[i])
		}
		v.done[i] = e.Game().Status().Over()
		v.write(i, b, reward, opp)
		return nil
	})
}

// checkAction reports whether a is legal in environment i: one of the
// legal actions write kept.
func (v *vector) checkAction(i int, a int64) error {
	if a < 0 || a >= env.NumActions {
		return fmt.Errorf("environment %d: action %d: out of range [0, %d)", i, a, env.NumActions)
	}
	if slices.Contains(v.legal[i], env.Action(a)) {
		return nil
	}
	m, err := env.MoveOf(env.Action(a))
	if err == nil {
		p := v.envs[i].Game().Position()
		err = p.CheckMove(m, v.envs[i].Game().Rules().TooTall)
	}
	if err == nil { // cannot happen: the legal actions are the position's
		err = errors.New("not among the legal actions")
	}
	return fmt.Errorf("environment %d: action %d: %w", i, a, err)
}

// sample writes a uniformly random legal action of each environment into
// actions, drawn from its own generator (0 for an environment about to
// reset, whose action is ignored).
func (v *vector) sample(actions []int64) error {
	if len(actions) != len(v.envs) {
		return fmt.Errorf("sample: %d actions for %d environments", len(actions), len(v.envs))
	}
	for i, legal := range v.legal {
		actions[i] = 0
		if !v.done[i] && len(legal) > 0 {
			actions[i] = int64(legal[v.rngs[i].IntN(len(legal))])
		}
	}
	return nil
}

// fen returns environment i's position.
func (v *vector) fen(i int64) (string, error) {
	if i < 0 || i >= int64(len(v.envs)) {
		return "", fmt.Errorf("environment %d: want 0 to %d", i, len(v.envs)-1)
	}
	p := v.envs[i].Game().Position()
	return p.FEN(), nil
}
