package binding

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/stepped"
	"github.com/deathstacks/deathstacks/model"
)

// Search searches many positions at once, each with its own PUCT search
// (an az player's) guided by the caller's evaluator: a slot each of an
// stepped.Run the caller steps.
type Search struct {
	cfg   mcts.Config
	rules env.Rules
	seed  uint64
	// run is the run under way or the last one; decisions are its
	// results, one per position, valid once it has ended without an
	// error.
	run       *stepped.Run
	decisions []mcts.Decision
	// players[i] searches position i of every run: kept from run to run,
	// so that their trees' memory is reused (and a tree itself, with
	// reuse_tree, when position i continues the game of the last run's),
	// as one player searches move after move. evals[i] is its evaluator:
	// the slot of the run under way.
	players []*mcts.PUCTPlayer
	evals   []*slotEvaluator
}

// slotEvaluator is the evaluator of a Search's player: the slot that
// runs its search in the run under way.
type slotEvaluator struct{ mcts.Evaluator }

// NewSearch resolves the settings (SearchConfig) of searches seeded from
// seed under rules.
func NewSearch(settings string, seed uint64, rules env.Rules) (*Search, error) {
	cfg, err := SearchConfig(settings)
	if err != nil {
		return nil, err
	}
	return &Search{cfg: cfg, rules: rules, seed: seed}, nil
}

// Config returns the search settings.
func (s *Search) Config() mcts.Config { return s.cfg }

// Start begins searching the positions of a JSON list of Positions and
// returns the run, a slot per position, and how many there are; the
// caller steps the run to its end and then reads the results.
func (s *Search) Start(text string) (*stepped.Run, int, error) {
	if underWay(s.run) {
		return nil, 0, errors.New("search: a search is under way: evaluate its leaves to the end, or abort it")
	}
	var positions []Position
	if err := json.Unmarshal([]byte(text), &positions); err != nil {
		return nil, 0, fmt.Errorf("search: positions: %w", err)
	}
	n := len(positions)
	games := make([]*env.Game, n)
	for i, p := range positions {
		g, err := p.Game(s.rules)
		if err == nil {
			err = gameOver(g)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("search: position %d: %w", i, err)
		}
		games[i] = g
	}
	for i := len(s.players); i < n; i++ {
		e := &slotEvaluator{}
		p, err := mcts.NewPUCTPlayer(e, s.cfg, env.MixSeed(s.seed, uint64(i), 0))
		if err != nil {
			return nil, 0, fmt.Errorf("search: %w", err)
		}
		s.players, s.evals = append(s.players, p), append(s.evals, e)
	}
	s.decisions = make([]mcts.Decision, n)
	works := make([]stepped.Work, n)
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
	s.run = stepped.New(works, s.cfg.BatchSize, model.LegalSoftmax)
	return s.run, n, nil
}

// underWay reports whether run (nil for none) has not ended.
func underWay(run *stepped.Run) bool { return run != nil && !run.Over() }

// outcome reports why the results of run (nil for none) cannot be read:
// no run, a run under way or a failed one; nil once it has ended well.
func outcome(run *stepped.Run) error {
	if run == nil {
		return errors.New("nothing has run")
	}
	return run.Err()
}

// Decisions returns the decisions of the last run, which must have ended
// without an error.
func (s *Search) Decisions() ([]mcts.Decision, error) {
	if err := outcome(s.run); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return s.decisions, nil
}

// Results writes the last run's results into the caller's arrays (nil to
// skip one), n positions each: the root visits of every action, the
// policy target over every action (Decision.Target: the visit shares of
// a PUCT root, the improved policy of a Gumbel one; the chosen move alone
// for a win proven before the tree search), the root value and the chosen
// action.
func (s *Search) Results(n int, visits []int32, policy, values []float32, actions []int64) error {
	ds, err := s.Decisions()
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

// Lines returns the last run's moves, principal variations, simulations
// and proven win lengths as a JSON list, one entry per position.
func (s *Search) Lines() (string, error) {
	ds, err := s.Decisions()
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
