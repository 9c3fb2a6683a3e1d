package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
)

// searcher searches many positions at once, each with its own PUCT
// search (an az player's, over mcts.DefaultConfig with the caller's
// settings) guided by the caller's evaluator: a slot of a stepRun each
// (see steps.go).
type searcher struct {
	cfg   mcts.Config
	rules env.Rules
	seed  uint64
	// q is the run under way or the last one; decisions are its results,
	// one per position, valid once it has ended without an error.
	q         *stepRun
	decisions []mcts.Decision
	// players[i] searches position i of every run: kept from run to run,
	// so that their trees' memory is reused (and a tree itself, with
	// reuse_tree, when position i continues the game of the last run's),
	// as one player searches move after move. evals[i] is its evaluator:
	// the slot of the run under way.
	players []*mcts.PUCTPlayer
	evals   []*slotEvaluator
}

// slotEvaluator is the evaluator of a searcher's player: the slot that
// runs its search in the run under way.
type slotEvaluator struct{ mcts.Evaluator }

// batchRun is an object whose searches a caller evaluates: a searcher or
// a self-play run.
type batchRun interface {
	object
	// leaves returns the run under way or the last one, nil before the
	// first.
	leaves() *stepRun
	// leafLimit is the most leaves one search asks for at once.
	leafLimit() int
}

func (s *searcher) leaves() *stepRun { return s.q }

func (s *searcher) leafLimit() int { return s.cfg.BatchSize }

// close stops a run under way.
func (s *searcher) close() error {
	stopRun(s.q)
	return nil
}

// stopRun stops a run under way, if any, from the thread of a call from C.
func stopRun(r *stepRun) {
	if r != nil {
		r.abort(callerThread())
	}
}

// keywords reads a JSON object of keyword settings into each key's
// value as text: a string as it is, a number or a boolean as written.
func keywords(text string) (map[string]string, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	kw := make(map[string]string, len(raw))
	for key, v := range raw {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			s = string(v) // a number or a boolean, as written
		}
		kw[key] = s
	}
	return kw, nil
}

// searchSettings reads a JSON object of search settings (keys of the
// search settings table or their aliases, values numbers, booleans or
// strings such as "500ms") in the order of the table (mcts.Keywords).
func searchSettings(text string) ([]mcts.Given, error) {
	kw, err := keywords(text)
	if err != nil {
		return nil, err
	}
	return mcts.Keywords(kw), nil
}

// newSearcher resolves the settings over mcts.DefaultConfig, as an az
// player's spec with the same keys resolves them, and checks them.
func newSearcher(settings string, seed uint64, rules env.Rules) (*searcher, error) {
	kw, err := keywords(settings)
	if err != nil {
		return nil, err
	}
	if _, ok := kw["model"]; ok {
		return nil, errors.New("model: no search setting: the caller's evaluator is the network")
	}
	cfg, err := mcts.DefaultConfig().ResolveKeywords(kw, 0)
	if err != nil {
		return nil, err
	}
	return &searcher{cfg: cfg, rules: rules, seed: seed}, nil
}

// searchPosition is one position to search: a FEN ("" for the start
// position) and the moves played since.
type searchPosition struct {
	FEN   string   `json:"fen"`
	Moves []string `json:"moves"`
}

// start begins searching the positions of a JSON list of searchPositions
// and returns how many there are; the caller then evaluates their leaves
// (ds_batch_round, or ds_batch_next and ds_batch_feed) until the run
// ends.
func (s *searcher) start(text string) (int64, error) {
	if s.q.underWay() {
		return 0, errors.New("search: a search is under way: evaluate its leaves to the end, or abort it")
	}
	var positions []searchPosition
	if err := json.Unmarshal([]byte(text), &positions); err != nil {
		return 0, fmt.Errorf("search: positions: %w", err)
	}
	n := len(positions)
	games := make([]*env.Game, n)
	for i, p := range positions {
		g, err := gameOf(p.FEN, strings.Join(p.Moves, " "), s.rules)
		if err == nil && g.Status().Over() {
			err = fmt.Errorf("the game is over (%v)", g.Status())
		}
		if err != nil {
			return 0, fmt.Errorf("search: position %d: %w", i, err)
		}
		games[i] = g
	}
	for i := len(s.players); i < n; i++ {
		e := &slotEvaluator{}
		p, err := mcts.NewPUCTPlayer(e, s.cfg, env.MixSeed(s.seed, uint64(i), 0))
		if err != nil {
			return 0, fmt.Errorf("search: %w", err)
		}
		s.players, s.evals = append(s.players, p), append(s.evals, e)
	}
	s.decisions = make([]mcts.Decision, n)
	works := make([]mcts.Work, n)
	for i := range n {
		works[i] = func(eval mcts.Evaluator) error {
			s.evals[i].Evaluator = eval
			d, err := s.players[i].Choose(games[i])
			if err != nil {
				return fmt.Errorf("position %d: %w", i, err)
			}
			s.decisions[i] = d
			return nil
		}
	}
	s.q = newStepRun(works, s.cfg.BatchSize)
	return int64(n), nil
}

// finished returns the decisions of the last run, which must have ended
// without an error.
func (s *searcher) finished() ([]mcts.Decision, error) {
	if err := s.q.outcome(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return s.decisions, nil
}

// results writes the last run's results into the caller's arrays (nil to
// skip one), n positions each: the root visits of every action, the
// policy target over every action (Decision.Target: the visit shares of
// a PUCT root, the improved policy of a Gumbel one; the chosen move alone
// for a win proven before the tree search), the root value and the chosen
// action.
func (s *searcher) results(n int, visits []int32, policy, values []float32, actions []int64) error {
	ds, err := s.finished()
	if err != nil {
		return err
	}
	if n != len(ds) {
		return fmt.Errorf("search results: arrays for %d positions, searched %d", n, len(ds))
	}
	if err := errors.Join(checkLen("visits", visits, n*env.NumActions), checkLen("policy", policy, n*env.NumActions),
		checkLen("values", values, n), checkLen("actions", actions, n)); err != nil {
		return fmt.Errorf("search results: %w", err)
	}
	for i, d := range ds {
		a, err := env.ActionOf(d.Move)
		if err != nil {
			return fmt.Errorf("search results: position %d: %w", i, err)
		}
		if actions != nil {
			actions[i] = int64(a)
		}
		if values != nil {
			values[i] = float32(d.Value)
		}
		if v := row(visits, i, env.NumActions); v != nil {
			clear(v)
			for a, k := range d.Visits {
				v[a] = int32(min(k, math.MaxInt32))
			}
		}
		if p := row(policy, i, env.NumActions); p != nil {
			clear(p)
			for a, w := range d.Target {
				p[a] = w
			}
			if len(d.Target) == 0 {
				p[a] = 1
			}
		}
	}
	return nil
}

// searchLine is the text result of one position's search.
type searchLine struct {
	Move        string   `json:"move"`
	PV          []string `json:"pv"`
	Simulations int      `json:"simulations"`
	Depth       int      `json:"depth"`
}

// lines returns the last run's moves, principal variations, simulations
// and proven win lengths as a JSON list, one entry per position.
func (s *searcher) lines() (string, error) {
	ds, err := s.finished()
	if err != nil {
		return "", err
	}
	out := make([]searchLine, len(ds))
	for i, d := range ds {
		out[i] = searchLine{Move: d.Move.String(), Simulations: d.Simulations, Depth: d.Depth}
		for _, m := range d.PV {
			out[i].PV = append(out[i].PV, m.String())
		}
	}
	b, err := json.Marshal(out)
	return string(b), err
}
