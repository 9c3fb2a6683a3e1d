package env

import (
	"fmt"
	"math/rand/v2"
)

// The methods of this file are the environment's fast path, for callers
// that own their buffers (a vector environment, a shared library handing
// numpy arrays in): they write the observation and the legal-action mask
// into the caller's slices instead of returning new ones. A step allocates
// nothing once the game's history has grown to its length; a reset reuses
// the game's history (so a *Game from [Env.Game] taken before it follows the
// new episode), and allocates only for its random opening plies.

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
		if g.status.Over() {
			clear(mask)
		} else {
			g.pos.legalMask(mask, g.rules.TooTall)
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
	m, err := MoveOf(a)
	if err != nil {
		return 0, false, false, fmt.Errorf("step: %w", err)
	}
	g := e.game
	mover := g.pos.SideToMove()
	if err := g.Play(m); err != nil {
		return 0, false, false, fmt.Errorf("step: action %d: %w", int(a), err)
	}
	e.observeInto(obs, mask)
	st := g.status
	return st.Reward(mover), endedByRules(st), st.Truncated(), nil
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
	if e.game.status.Over() {
		return dst
	}
	return e.game.pos.LegalActions(dst, e.game.rules.TooTall)
}

// restart makes g a new game from p under rules, keeping the capacity of
// its history.
func (g *Game) restart(p Position, rules Rules) {
	g.rules, g.start, g.pos = rules, p, p
	g.moves, g.hashes = g.moves[:0], g.hashes[:0]
	g.status = g.computeStatus()
}
