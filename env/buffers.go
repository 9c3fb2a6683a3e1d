package env

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// The methods of this file are the environment's fast path, for callers
// that own their buffers (a vector environment, a shared library handing
// numpy arrays in): they write the observation and the legal-action mask
// into the caller's slices instead of returning new ones. A step allocates
// nothing once the game's history has grown to its length; a reset reuses
// the game's history (so a *Game from [Env.Game] taken before it follows the
// new episode), and allocates only for its random opening plies. The legal
// actions of a mask are kept for the next step's check (see legalCache), so
// ObserveInto and AppendLegalActions change the environment too: like its
// other methods, they must not run alongside another call on it.

// checkBuffers reports an error unless obs is nil or holds ObservationSize
// values and mask is nil or holds NumActions entries.
func checkBuffers(what string, obs []float32, mask []bool) error {
	if obs != nil && len(obs) != ObservationSize {
		return fmt.Errorf("%s: observation buffer has %d values, want %d", what, len(obs), ObservationSize)
	}
	if mask != nil && len(mask) != NumActions {
		return fmt.Errorf("%s: mask buffer has %d entries, want %d", what, len(mask), NumActions)
	}
	return nil
}

// ObserveInto writes the observation of the current position into obs
// (ObservationSize values) and its legal-action mask into mask (NumActions
// entries, all false once the episode has ended); either may be nil to
// skip it. They equal [Env.Observation] and [Env.LegalMask].
func (e *Env) ObserveInto(obs []float32, mask []bool) error {
	if err := checkBuffers("observe", obs, mask); err != nil {
		return err
	}
	e.observeInto(obs, mask)
	return nil
}

// observeInto is ObserveInto with checked buffers.
func (e *Env) observeInto(obs []float32, mask []bool) {
	g := e.game
	if obs != nil {
		EncodeObservation(obs, &g.pos, g.rules, g.Repetitions())
	}
	if mask != nil {
		clear(mask)
		if !g.status.Over() {
			for _, a := range e.legal.of(&g.pos, g.rules.TooTall) {
				mask[a] = true
			}
		}
	}
}

// StepInto is [Env.Step] writing the new observation and mask into obs and
// mask as [Env.ObserveInto] does (either may be nil) instead of returning
// them. An illegal action, a step after the end or a buffer of the wrong
// size returns an error and changes nothing.
func (e *Env) StepInto(a Action, obs []float32, mask []bool) (reward float32, terminated, truncated bool, err error) {
	if err := checkBuffers("step", obs, mask); err != nil {
		return 0, false, false, err
	}
	mover := e.game.pos.SideToMove()
	if _, err := e.playAction(a); err != nil {
		return 0, false, false, err
	}
	e.observeInto(obs, mask)
	st := e.game.status
	return st.Reward(mover), st.Terminated(), st.Truncated(), nil
}

// playAction plays the move of action a and returns it. When the legal
// actions last generated for a mask are the position's and a is among them,
// the move is played without another check; any other action takes the
// checked way, so that an illegal one gets its error.
func (e *Env) playAction(a Action) (Move, error) {
	g := e.game
	if !g.status.Over() && e.legal.holds(&g.pos, g.rules.TooTall) && slices.Contains(e.legal.actions, a) {
		m := a.move()
		g.play(m)
		return m, nil
	}
	m, err := MoveOf(a)
	if err != nil {
		return Move{}, fmt.Errorf("step: %w", err)
	}
	if err := g.Play(m); err != nil {
		return Move{}, fmt.Errorf("step: action %d: %w", int(a), err)
	}
	return m, nil
}

// legalCache holds the legal actions of one position, for the fast path: a
// mask and the next step's check of its action come from one move
// generation. It is keyed on what the legal moves depend on, the stacks,
// the side to move and the too-tall setting, so that a position reached
// any other way (a reset, Game().Play or Undo) is never answered with
// another position's actions.
type legalCache struct {
	pos     Position
	tooTall bool
	filled  bool
	actions []Action
}

// holds reports whether the cache holds the legal actions of p under
// tooTall.
func (c *legalCache) holds(p *Position, tooTall bool) bool {
	return c.filled && c.tooTall == tooTall && c.pos.SameAs(p)
}

// of fills the cache with the legal actions of p under tooTall unless it
// holds them already, and returns them.
func (c *legalCache) of(p *Position, tooTall bool) []Action {
	if !c.holds(p, tooTall) {
		c.pos, c.tooTall, c.filled = *p, tooTall, true
		c.actions = p.LegalActions(c.actions[:0], tooTall)
	}
	return c.actions
}

// ResetInto is [Env.ResetWith] writing the first observation and mask into
// obs and mask as [Env.ObserveInto] does (either may be nil). It reuses the
// game's history rather than starting a new [Game]. A bad FEN, a finished
// start position, negative opening plies, invalid rules or a buffer of the
// wrong size return an error and leave the environment unchanged.
func (e *Env) ResetInto(seed uint64, o ResetOptions, obs []float32, mask []bool) (Info, error) {
	if err := checkBuffers("reset", obs, mask); err != nil {
		return Info{}, err
	}
	start, rules, err := e.episodeStart(o)
	if err != nil {
		return Info{}, err
	}
	e.game.restart(start, rules)
	var opening []Move
	if o.OpeningPlies > 0 {
		opening = PlayOpening(e.game, o.OpeningPlies, rand.New(rand.NewPCG(seed, openingStream)))
	}
	e.observeInto(obs, mask)
	info := e.info()
	info.Opening = opening
	return info, nil
}

// AppendLegalActions appends the legal action indices of the current
// position to dst, as [Env.LegalActions] returns them: none once the
// episode has ended.
func (e *Env) AppendLegalActions(dst []Action) []Action {
	g := e.game
	if g.status.Over() {
		return dst
	}
	return append(dst, e.legal.of(&g.pos, g.rules.TooTall)...)
}

// restart makes g a new game from p under rules, keeping the capacity of
// its history.
func (g *Game) restart(p Position, rules Rules) {
	g.rules, g.start, g.pos = rules, p, p
	g.moves, g.hashes = g.moves[:0], g.hashes[:0]
	g.update()
}
