package main

import (
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/train/binding"
)

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

// stopRun stops a run under way, if any, from the thread of a call from C.
func stopRun(r *stepRun) {
	if r != nil {
		r.abort(callerThread())
	}
}

// searcher searches many positions at once (binding.Search), each a slot
// of a stepRun.
type searcher struct {
	*binding.Search
	// cfg is the search settings.
	cfg mcts.Config
	// q is the run under way or the last one.
	q *stepRun
}

func (s *searcher) leaves() *stepRun { return s.q }

func (s *searcher) leafLimit() int { return s.cfg.BatchSize }

// close stops a run under way.
func (s *searcher) close() error {
	stopRun(s.q)
	return nil
}

// searchSettings reads a JSON object of search settings in the order of
// the table (binding.SearchSettings).
func searchSettings(text string) ([]mcts.Given, error) { return binding.SearchSettings(text) }

// newSearcher resolves the settings over mcts.DefaultConfig, as an az
// player's spec with the same keys resolves them, and checks them.
func newSearcher(settings string, seed uint64, rules env.Rules) (*searcher, error) {
	s, err := binding.NewSearch(settings, seed, rules)
	if err != nil {
		return nil, err
	}
	return &searcher{Search: s, cfg: s.Config()}, nil
}

// start begins searching the positions of a JSON list of
// binding.Positions and returns how many there are; the caller then
// evaluates their leaves (ds_batch_round, or ds_batch_next and
// ds_batch_feed) until the run ends.
func (s *searcher) start(text string) (int64, error) {
	run, n, err := s.Start(text)
	if err != nil {
		return 0, err
	}
	s.q = &stepRun{Run: run}
	return int64(n), nil
}
