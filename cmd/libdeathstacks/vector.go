package main

import (
	"fmt"

	"github.com/deathstacks/deathstacks/env"
	vec "github.com/deathstacks/deathstacks/env/vector"
	"github.com/deathstacks/deathstacks/train/binding"
)

// vector is a vector environment behind a handle: a vec.Vector whose
// opponents are players of a spec (binding.Opponents).
type vector struct {
	*vec.Vector
	// actions holds the actions of a call as env.Actions.
	actions []env.Action
}

// close stops the opponents: external programs are killed and reaped.
func (v *vector) close() error { return v.Close() }

// newVector returns n environments whose agent plays colour (0 red, 1
// blue, 2 alternating) against opponents of spec ("" for none).
func newVector(n int64, opts env.Options, spec string, colour int64) (*vector, error) {
	o := vec.Options{Env: opts, Agent: vec.AgentColors(colour)}
	if spec != "" {
		var err error
		if o.NewOpponent, o.OpponentWaits, err = binding.Opponents(spec, models().Load); err != nil {
			return nil, err
		}
	}
	ev, err := vec.New(int(n), o)
	if err != nil {
		return nil, err
	}
	return &vector{Vector: ev, actions: make([]env.Action, n)}, nil
}

// step plays the caller's actions.
func (v *vector) step(actions []int64, b *vec.Buffers) error {
	if len(actions) != len(v.actions) {
		return fmt.Errorf("step: %d actions for %d environments", len(actions), len(v.actions))
	}
	for i, a := range actions {
		v.actions[i] = env.Action(a)
	}
	return v.Step(v.actions, b)
}

// sample writes a random legal action of each environment into actions.
func (v *vector) sample(actions []int64) error {
	if len(actions) != len(v.actions) {
		return fmt.Errorf("sample: %d actions for %d environments", len(actions), len(v.actions))
	}
	if err := v.Sample(v.actions); err != nil {
		return err
	}
	for i, a := range v.actions {
		actions[i] = int64(a)
	}
	return nil
}

// fen returns environment i's position.
func (v *vector) fen(i int64) (string, error) {
	if i < 0 || i >= int64(v.Len()) {
		return "", fmt.Errorf("environment %d: want 0 to %d", i, v.Len()-1)
	}
	p := v.Game(int(i)).Position()
	return p.FEN(), nil
}
