package binding

import (
	"fmt"
	"math"

	"github.com/deathstacks/deathstacks/env"
	vec "github.com/deathstacks/deathstacks/env/vector"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
)

// Env is one environment: the AEC and Gymnasium environments' engine.
type Env struct {
	*env.Env
}

// NewEnv returns an environment of options o.
func NewEnv(o env.Options) (*Env, error) {
	e, err := env.NewEnv(o)
	if err != nil {
		return nil, err
	}
	return &Env{Env: e}, nil
}

// Reset starts an episode from fen ("" for the start position) with
// openingPlies random plies (negative: the environment's setting).
func (e *Env) Reset(seed uint64, fen string, openingPlies int64, obs []float32, mask []bool) error {
	o := env.ResetOptions{FEN: fen, OpeningPlies: e.Options().OpeningPlies}
	if openingPlies >= 0 {
		if openingPlies > math.MaxInt32 {
			return fmt.Errorf("reset: opening plies %d: too many", openingPlies)
		}
		o.OpeningPlies = int(openingPlies)
	}
	_, err := e.ResetInto(seed, o, obs, mask)
	return err
}

// Step plays action a.
func (e *Env) Step(a int64, obs []float32, mask []bool) (reward float32, terminated, truncated bool, err error) {
	if a < 0 || a >= env.NumActions {
		return 0, false, false, fmt.Errorf("step: action %d: out of range [0, %d)", a, env.NumActions)
	}
	return e.StepInto(env.Action(a), obs, mask)
}

// State fills out with the status, the ply, the repetitions, the side to
// move (0 red, 1 blue) and the number of legal actions.
func (e *Env) State(out []int64) error {
	if err := checkLen("state buffer", out, 5); err != nil {
		return err
	}
	g := e.Game()
	p := g.Position()
	out[0], out[1], out[2], out[3] = int64(g.Status()), int64(p.Ply()), int64(g.Repetitions()), int64(p.SideToMove())
	out[4] = int64(len(e.AppendLegalActions(make([]env.Action, 0, 256))))
	return nil
}

// Legal writes the legal actions into dst and returns how many there are
// (more than len(dst) when it is too short, then writing none).
func (e *Env) Legal(dst []int64) int64 {
	var buf [256]env.Action
	legal := e.AppendLegalActions(buf[:0])
	if len(legal) <= len(dst) {
		for i, a := range legal {
			dst[i] = int64(a)
		}
	}
	return int64(len(legal))
}

// The texts of an environment.
const (
	TextFEN = iota
	TextRender
	TextMoves
	TextStartFEN
)

// Text returns the FEN, the board drawn as text, the moves played
// (space-separated) or the start FEN of the environment's game.
func (e *Env) Text(which int64) (string, error) {
	g := e.Game()
	switch which {
	case TextFEN:
		p := g.Position()
		return p.FEN(), nil
	case TextRender:
		return e.Render(), nil
	case TextMoves:
		return JoinMoves(g.Moves()), nil
	case TextStartFEN:
		p := g.StartPosition()
		return p.FEN(), nil
	}
	return "", fmt.Errorf("text %d: want 0 (fen), 1 (render), 2 (moves) or 3 (start fen)", which)
}

// Opponents returns the opponents of a vector environment that are
// players of spec (vec.Options's NewOpponent), az players'
// networks loaded by load, and whether they wait on a network server
// (OpponentWaits). The spec is checked by building one player now.
func Opponents(spec string, load players.AZLoader) (func(seed uint64) (vec.Opponent, error), bool, error) {
	p, s, err := newPlayerOf(spec, 0, load)
	if err != nil {
		return nil, false, fmt.Errorf("opponent: %w", err)
	}
	if err := ClosePlayer(p); err != nil {
		return nil, false, fmt.Errorf("opponent: %w", err)
	}
	return func(seed uint64) (vec.Opponent, error) {
		p, _, err := newPlayerOf(spec, seed, load)
		if err != nil {
			return nil, err
		}
		return opponent{p: p, spec: spec}, nil
	}, waitsOnServer(s), nil
}

// opponent is a player answering the agent inside a vector environment's
// steps.
type opponent struct {
	p    mcts.Player
	spec string
}

// Reset starts a player that keeps a search tree between moves afresh.
func (o opponent) Reset() {
	if r, ok := o.p.(interface{ Reset() }); ok {
		r.Reset()
	}
}

func (o opponent) Move(g *env.Game) (env.Move, error) {
	d, err := o.p.Choose(g)
	if err != nil {
		return env.Move{}, fmt.Errorf("%s: %w", o.spec, err)
	}
	return d.Move, nil
}

// Close stops a player that holds a resource.
func (o opponent) Close() error { return ClosePlayer(o.p) }
