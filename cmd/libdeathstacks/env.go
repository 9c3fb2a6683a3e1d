package main

import (
	"fmt"
	"math"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/train/binding"
)

// The library's objects in Go terms, which the exported C functions of
// exports.go wrap and the tests call: the objects of package binding
// behind handles. This file: the rules and options from the C API's
// numbers and one environment (a single game).

// rulesOf reads the rules from the C API's numbers.
func rulesOf(tooTall, maxPlies, repetitions int64) (env.Rules, error) {
	if maxPlies < 0 || maxPlies > math.MaxInt32 || repetitions < 0 || repetitions > math.MaxInt32 {
		return env.Rules{}, fmt.Errorf("rules: max_plies %d, repetitions %d: out of range", maxPlies, repetitions)
	}
	r := env.Rules{TooTall: tooTall != 0, MaxPlies: int(maxPlies), RepetitionLimit: int(repetitions)}
	return r, r.Validate()
}

// optionsOf reads an environment's options from the C API's numbers.
func optionsOf(tooTall, maxPlies, repetitions, openingPlies int64) (env.Options, error) {
	r, err := rulesOf(tooTall, maxPlies, repetitions)
	if err != nil {
		return env.Options{}, err
	}
	if openingPlies < 0 || openingPlies > math.MaxInt32 {
		return env.Options{}, fmt.Errorf("options: opening_plies is %d: want 0 or more", openingPlies)
	}
	o := env.Options{Rules: r, OpeningPlies: int(openingPlies)}
	return o, o.Validate()
}

// single is one environment.
type single struct{ *binding.Env }

func (*single) close() error { return nil }

func newSingle(o env.Options) (*single, error) {
	e, err := binding.NewEnv(o)
	if err != nil {
		return nil, err
	}
	return &single{Env: e}, nil
}
