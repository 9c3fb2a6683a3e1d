package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
)

// The library's functions in Go terms, which the exported C functions of
// exports.go wrap and the tests call: strings and slices in, errors out.

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

// models are the az players' and the networks' networks, each loaded once
// and served by one batching server for every handle of the process.
var models = sync.OnceValue(func() *train.Models {
	return train.NewModels(model.DefaultServerConfig(), os.Stderr)
})

// newPlayerOf builds the player a spec names, the project's one way from a
// spec to a player.
func newPlayerOf(spec string, seed uint64) (mcts.Player, players.Spec, error) {
	s, err := players.ParseSpec(spec)
	if err != nil {
		return nil, players.Spec{}, err
	}
	p, err := players.NewPlayer(s, seed, models().Load)
	return p, s, err
}

// waitsOnServer reports whether the searches of a player of spec s wait on
// a network server, an az player's several times a move: they run off
// the caller's thread (see offThread).
func waitsOnServer(s players.Spec) bool { return s.Kind == players.KindAZ }

// player is a player of any spec.
type player struct {
	p mcts.Player
	// blocks says that its searches wait on a network server (see
	// waitsOnServer).
	blocks bool
	// last is the last decision, as JSON, for a caller whose buffer was
	// too short for it.
	last string
}

func (*player) close() error { return nil }

func newPlayer(spec string, seed uint64) (*player, error) {
	p, s, err := newPlayerOf(spec, seed)
	if err != nil {
		return nil, err
	}
	return &player{p: p, blocks: waitsOnServer(s)}, nil
}

// decision is what choose returns, as JSON.
type decision struct {
	Move        string         `json:"move"`
	Action      int            `json:"action"`
	Value       *float64       `json:"value"`
	Visits      map[string]int `json:"visits"`
	PV          []string       `json:"pv"`
	Simulations int            `json:"simulations"`
	Depth       int            `json:"depth"`
	Score       int            `json:"score"`
	Nodes       int64          `json:"nodes"`
}

// choose returns the player's decision in the game of a FEN and the moves
// since, as JSON.
func (p *player) choose(fen, moves string, rules env.Rules) (string, error) {
	g, err := gameOf(fen, moves, rules)
	if err != nil {
		return "", err
	}
	if st := g.Status(); st.Over() {
		return "", fmt.Errorf("choose: the game is over (%v)", st)
	}
	var d mcts.Decision
	choose := func() (err error) {
		d, err = p.p.Choose(g)
		return err
	}
	if p.blocks {
		// 104 moves a second at 200 simulations from Python, 78 on the
		// caller's thread.
		err = offThread(choose)
	} else {
		err = choose()
	}
	if err != nil {
		return "", fmt.Errorf("choose: %w", err)
	}
	a, err := env.ActionOf(d.Move)
	if err != nil {
		return "", fmt.Errorf("choose: %w", err)
	}
	out := decision{Move: d.Move.String(), Action: int(a), Simulations: d.Simulations, Depth: d.Depth, Score: d.Score, Nodes: d.Nodes}
	if !math.IsNaN(d.Value) && !math.IsInf(d.Value, 0) {
		out.Value = &d.Value
	}
	for _, m := range d.PV {
		out.PV = append(out.PV, m.String())
	}
	if len(d.Visits) > 0 {
		out.Visits = map[string]int{}
		for a, n := range d.Visits {
			if m, err := env.MoveOf(a); err == nil {
				out.Visits[m.String()] = n
			}
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", err
	}
	p.last = string(b)
	return p.last, nil
}

// network is a network's batched inference, through the process's server
// for its file.
type network struct {
	eval mcts.Evaluator
	// path is the model path; tensors its weights, read when first asked
	// for.
	path    string
	tensors []tensor
	about   networkAbout
}

func (*network) close() error { return nil }

// newNetwork loads the network of a model path ("" for the built-in
// player's) as az players do.
func newNetwork(path string) (*network, error) {
	eval, _, err := models().Load(path)
	if err != nil {
		return nil, err
	}
	return &network{eval: eval, path: path}, nil
}

// allActions lists every action, the legal actions of predict's rows.
var allActions = sync.OnceValue(func() []env.Action {
	all := make([]env.Action, env.NumActions)
	for i := range all {
		all[i] = env.Action(i)
	}
	return all
})

// minLogProb is the log-probability predict reports for a probability that
// underflowed to 0.
const minLogProb = -87

// predict evaluates n observations, writing each one's log-probabilities
// over every action (the policy logits, shifted to a log-softmax) into
// logits and its value into values.
func (nw *network) predict(obs []float32, n int, logits, values []float32) error {
	if n < 0 {
		return fmt.Errorf("predict: %d positions", n)
	}
	for _, c := range []struct {
		what       string
		have, want int
	}{
		{"observations", len(obs), n * env.ObservationSize},
		{"logits", len(logits), n * env.NumActions},
		{"values", len(values), n},
	} {
		if c.have != c.want {
			return fmt.Errorf("predict: %s buffer has %d values for %d positions, want %d", c.what, c.have, n, c.want)
		}
	}
	if n == 0 {
		return nil
	}
	legal := make([][]env.Action, n)
	priors := make([][]float32, n)
	for i := range n {
		legal[i] = allActions()
		priors[i] = logits[i*env.NumActions : (i+1)*env.NumActions]
	}
	if err := nw.eval.Evaluate(obs, legal, priors, values); err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	for i, p := range logits {
		if p > 0 {
			logits[i] = float32(math.Log(float64(p)))
		} else {
			logits[i] = minLogProb
		}
	}
	return nil
}

// serverStats writes the network server's counts of a model path (""
// for the built-in player's), the server az players and networks of that
// path share: batches run and positions evaluated.
func serverStats(path string, out []int64) error {
	if err := checkLen("stats buffer", out, 2); err != nil || out == nil {
		return fmt.Errorf("server stats: want a buffer of 2 values: %w", err)
	}
	eval, _, err := models().Load(path)
	if err != nil {
		return err
	}
	srv, ok := eval.(interface{ Stats() model.ServerStats })
	if !ok {
		return fmt.Errorf("server stats: model %q is not served by a batching server", path)
	}
	st := srv.Stats()
	out[0], out[1] = st.Batches, st.Positions
	return nil
}
