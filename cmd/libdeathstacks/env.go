package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
)

// The library's functions in Go terms, which the exported C functions of
// exports.go wrap and the tests call: strings and slices in, errors out.
// This file: the library's constants, the rules from the C API's numbers,
// one environment (a single game) and the position helpers.

// libInfo describes the library to its caller, who reads it once.
type libInfo struct {
	NumActions  int      `json:"num_actions"`
	NumPlanes   int      `json:"num_planes"`
	BoardSize   int      `json:"board_size"`
	ObsSize     int      `json:"observation_size"`
	HeightPlane int      `json:"height_plane"`
	HeightHigh  string   `json:"height_high"`
	StartFEN    string   `json:"start_fen"`
	MaxPlies    int      `json:"max_plies"`
	Repetitions int      `json:"repetitions"`
	TooTall     bool     `json:"too_tall"`
	Kernels     string   `json:"kernels"`
	Statuses    []string `json:"statuses"`
}

// info returns the library's constants as JSON.
func info() string {
	r := env.DefaultRules()
	space := env.ObservationSpace()
	high := make([]string, len(space.High))
	for i, h := range space.High {
		high[i] = fmt.Sprint(h)
	}
	var statuses []string
	for s := env.Ongoing; s <= env.MoveLimit; s++ {
		statuses = append(statuses, s.String())
	}
	b, _ := json.Marshal(libInfo{
		NumActions: env.NumActions, NumPlanes: env.NumPlanes, BoardSize: env.BoardSize,
		ObsSize: env.ObservationSize, HeightHigh: strings.Join(high, ","),
		StartFEN: env.StartFEN, MaxPlies: r.MaxPlies, Repetitions: r.RepetitionLimit, TooTall: r.TooTall,
		Kernels: model.Kernels(), Statuses: statuses,
	})
	return string(b)
}

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

// checkLen reports a buffer (nil for none) whose length is not want.
func checkLen[T any](what string, buf []T, want int) error {
	if buf != nil && len(buf) != want {
		return fmt.Errorf("%s has %d entries, want %d", what, len(buf), want)
	}
	return nil
}

// row returns item i's part of a buffer of n entries per item, nil for a
// nil buffer.
func row[T any](buf []T, i, n int) []T {
	if buf == nil {
		return nil
	}
	return buf[i*n : (i+1)*n]
}

// single is one environment: the AEC and Gymnasium environments' engine.
type single struct {
	env *env.Env
}

func (*single) close() error { return nil }

func newSingle(o env.Options) (*single, error) {
	e, err := env.NewEnv(o)
	if err != nil {
		return nil, err
	}
	return &single{env: e}, nil
}

// reset starts an episode from fen ("" for the start position) with
// openingPlies random plies (negative: the environment's setting).
func (s *single) reset(seed uint64, fen string, openingPlies int64, obs []float32, mask []bool) error {
	o := env.ResetOptions{FEN: fen, OpeningPlies: s.env.Options().OpeningPlies}
	if openingPlies >= 0 {
		if openingPlies > math.MaxInt32 {
			return fmt.Errorf("reset: opening plies %d: too many", openingPlies)
		}
		o.OpeningPlies = int(openingPlies)
	}
	_, err := s.env.ResetInto(seed, o, obs, mask)
	return err
}

// step plays action a.
func (s *single) step(a int64, obs []float32, mask []bool) (reward float32, terminated, truncated bool, err error) {
	if a < 0 || a >= env.NumActions {
		return 0, false, false, fmt.Errorf("step: action %d: out of range [0, %d)", a, env.NumActions)
	}
	return s.env.StepInto(env.Action(a), obs, mask)
}

// state fills out with the status, the ply, the repetitions, the side to
// move (0 red, 1 blue) and the number of legal actions.
func (s *single) state(out []int64) error {
	if err := checkLen("state buffer", out, 5); err != nil {
		return err
	}
	g := s.env.Game()
	p := g.Position()
	out[0], out[1], out[2], out[3] = int64(g.Status()), int64(p.Ply()), int64(g.Repetitions()), int64(p.SideToMove())
	out[4] = int64(len(s.env.AppendLegalActions(make([]env.Action, 0, 256))))
	return nil
}

// legal writes the legal actions into dst and returns how many there are
// (more than len(dst) when it is too short, then writing none).
func (s *single) legal(dst []int64) int64 {
	var buf [256]env.Action
	legal := s.env.AppendLegalActions(buf[:0])
	if len(legal) <= len(dst) {
		for i, a := range legal {
			dst[i] = int64(a)
		}
	}
	return int64(len(legal))
}

// text returns the FEN, the board drawn as text, or the moves played
// (space-separated) of the environment's game.
func (s *single) text(which int64) (string, error) {
	g := s.env.Game()
	switch which {
	case textFEN:
		p := g.Position()
		return p.FEN(), nil
	case textRender:
		return s.env.Render(), nil
	case textMoves:
		return joinMoves(g.Moves()), nil
	case textStartFEN:
		p := g.StartPosition()
		return p.FEN(), nil
	}
	return "", fmt.Errorf("text %d: want 0 (fen), 1 (render), 2 (moves) or 3 (start fen)", which)
}

// The texts of an environment.
const (
	textFEN = iota
	textRender
	textMoves
	textStartFEN
)

func joinMoves(moves []env.Move) string {
	parts := make([]string, len(moves))
	for i, m := range moves {
		parts[i] = m.String()
	}
	return strings.Join(parts, " ")
}

// gameOf builds the game of a FEN ("" for the start position) and the
// moves played since, space-separated, under rules.
func gameOf(fen, moves string, rules env.Rules) (*env.Game, error) {
	p := env.StartPosition()
	if fen != "" {
		var err error
		if p, err = env.ParseFEN(fen); err != nil {
			return nil, err
		}
	}
	g, err := env.PlayMoves(p, rules, strings.Fields(moves))
	if err != nil {
		return nil, fmt.Errorf("moves: %w", err)
	}
	return g, nil
}

// legalMoves returns the legal moves of a position, space-separated.
func legalMoves(fen string, tooTall bool) (string, error) {
	r := env.DefaultRules()
	r.TooTall = tooTall
	g, err := gameOf(fen, "", r)
	if err != nil {
		return "", err
	}
	return joinMoves(g.LegalMoves(nil)), nil
}

// renderFEN draws a position as text.
func renderFEN(fen string) (string, error) {
	p, err := env.ParseFEN(fen)
	if err != nil {
		return "", err
	}
	return p.Render(), nil
}

// actionOf returns the action index of a move in notation.
func actionOf(move string) (int64, error) {
	m, err := env.ParseMove(move)
	if err != nil {
		return 0, err
	}
	a, err := env.ActionOf(m)
	return int64(a), err
}

// moveOf returns the move of an action index in notation.
func moveOf(a int64) (string, error) {
	if a < 0 || a >= env.NumActions {
		return "", fmt.Errorf("action %d: out of range [0, %d)", a, env.NumActions)
	}
	m, err := env.MoveOf(env.Action(a))
	return m.String(), err
}
