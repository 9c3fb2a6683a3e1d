package binding

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
)

// Info is the library's constants, which a caller reads once.
type Info struct {
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

// InfoJSON returns the library's constants as JSON.
func InfoJSON() string {
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
	b, _ := json.Marshal(Info{
		NumActions: env.NumActions, NumPlanes: env.NumPlanes, BoardSize: env.BoardSize,
		ObsSize: env.ObservationSize, HeightHigh: strings.Join(high, ","),
		StartFEN: env.StartFEN, MaxPlies: r.MaxPlies, Repetitions: r.RepetitionLimit, TooTall: r.TooTall,
		Kernels: model.Kernels(), Statuses: statuses,
	})
	return string(b)
}

// Position is one position to search: a FEN ("" for the start position)
// and the moves played since.
type Position struct {
	FEN   string   `json:"fen"`
	Moves []string `json:"moves"`
}

// Game builds the position's game under rules.
func (p Position) Game(rules env.Rules) (*env.Game, error) {
	start := env.StartPosition()
	if p.FEN != "" {
		var err error
		if start, err = env.ParseFEN(p.FEN); err != nil {
			return nil, err
		}
	}
	// A move of the list may also be several, space-separated.
	g, err := env.PlayMoves(start, rules, strings.Fields(strings.Join(p.Moves, " ")))
	if err != nil {
		return nil, fmt.Errorf("moves: %w", err)
	}
	return g, nil
}

// gameOver reports a game that is over, which has no move to choose.
func gameOver(g *env.Game) error {
	if st := g.Status(); st.Over() {
		return fmt.Errorf("the game is over (%v)", st)
	}
	return nil
}

// PositionOf is the position of a FEN and the moves played since,
// space-separated.
func PositionOf(fen, moves string) Position { return Position{FEN: fen, Moves: strings.Fields(moves)} }

// JoinMoves writes moves space-separated.
func JoinMoves(moves []env.Move) string {
	parts := make([]string, len(moves))
	for i, m := range moves {
		parts[i] = m.String()
	}
	return strings.Join(parts, " ")
}

// LegalMoves returns the legal moves of a position, space-separated.
func LegalMoves(fen string, tooTall bool) (string, error) {
	r := env.DefaultRules()
	r.TooTall = tooTall
	g, err := Position{FEN: fen}.Game(r)
	if err != nil {
		return "", err
	}
	return JoinMoves(g.LegalMoves(nil)), nil
}

// RenderFEN draws a position as text.
func RenderFEN(fen string) (string, error) {
	p, err := env.ParseFEN(fen)
	if err != nil {
		return "", err
	}
	return p.Render(), nil
}

// ActionOf returns the action index of a move in notation.
func ActionOf(move string) (int64, error) {
	m, err := env.ParseMove(move)
	if err != nil {
		return 0, err
	}
	a, err := env.ActionOf(m)
	return int64(a), err
}

// MoveOf returns the move of an action index in notation.
func MoveOf(a int64) (string, error) {
	if a < 0 || a >= env.NumActions {
		return "", fmt.Errorf("action %d: out of range [0, %d)", a, env.NumActions)
	}
	m, err := env.MoveOf(env.Action(a))
	return m.String(), err
}

// checkLen reports an array (nil for none) whose length is not want.
func checkLen[T any](what string, buf []T, want int) error {
	if buf != nil && len(buf) != want {
		return fmt.Errorf("%s has %d entries, want %d", what, len(buf), want)
	}
	return nil
}

// row returns item i's part of an array of n entries per item, nil for a
// nil array.
func row[T any](buf []T, i, n int) []T {
	if buf == nil {
		return nil
	}
	return buf[i*n : (i+1)*n]
}
