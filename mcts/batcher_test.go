package mcts

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/env"
)

// slowEvaluator takes a while per call, so that requests pile up behind
// it, and records the batch sizes it sees.
type slowEvaluator struct {
	countingEvaluator
	delay time.Duration
	fail  bool
}

func (s *slowEvaluator) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	time.Sleep(s.delay)
	if err := s.countingEvaluator.Evaluate(obs, legal, priors, values); err != nil {
		return err
	}
	if s.fail {
		return errTest
	}
	return nil
}

// request builds an evaluation request for n positions of a random game.
func request(t *testing.T, seed uint64, n int) (obs []float32, legal [][]env.Action, priors [][]float32, values []float32) {
	t.Helper()
	values = make([]float32, n)
	for i := range n {
		g := randomGame(t, seed*100+uint64(i), 5+i)
		p := g.Position()
		o := make([]float32, env.ObservationSize)
		env.EncodeObservation(o, &p, g.Rules(), g.Repetitions())
		obs = append(obs, o...)
		acts := p.LegalActions(nil, true)
		legal = append(legal, acts)
		priors = append(priors, make([]float32, len(acts)))
	}
	return obs, legal, priors, values
}

func TestBatcherMergesAndAnswersEveryCaller(t *testing.T) {
	for _, wait := range []time.Duration{0, 2 * time.Millisecond} {
		t.Run(wait.String(), func(t *testing.T) {
			slow := &slowEvaluator{countingEvaluator: countingEvaluator{inner: hashEvaluator{}}, delay: time.Millisecond}
			b, err := NewBatcher(slow, 16, wait)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			var wg sync.WaitGroup
			const callers, rounds = 8, 5
			for c := range callers {
				wg.Go(func() {
					for r := range rounds {
						n := 1 + (c+r)%3
						obs, legal, priors, values := request(t, uint64(c*rounds+r), n)
						if err := b.Evaluate(obs, legal, priors, values); err != nil {
							t.Error(err)
							return
						}
						// The answer must be the one the inner evaluator
						// gives these positions alone.
						_, _, wantPriors, wantValues := request(t, uint64(c*rounds+r), n)
						if err := (hashEvaluator{}).Evaluate(obs, legal, wantPriors, wantValues); err != nil {
							t.Error(err)
							return
						}
						for i := range values {
							if values[i] != wantValues[i] || priors[i][0] != wantPriors[i][0] {
								t.Errorf("caller %d round %d: position %d got another position's answer", c, r, i)
							}
						}
					}
				})
			}
			wg.Wait()
			if slow.calls >= callers*rounds || slow.maxed > 16+2 {
				t.Errorf("%d inner calls for %d requests, largest %d: want merged batches of at most about 16", slow.calls, callers*rounds, slow.maxed)
			}
		})
	}
}

func TestBatcherErrorsAndClose(t *testing.T) {
	slow := &slowEvaluator{countingEvaluator: countingEvaluator{inner: UniformEvaluator{}}, fail: true}
	b, err := NewBatcher(slow, 8, 0)
	if err != nil {
		t.Fatal(err)
	}
	obs, legal, priors, values := request(t, 1, 2)
	if err := b.Evaluate(obs, legal, priors, values); !errors.Is(err, errTest) {
		t.Errorf("error %v, want the inner evaluator's", err)
	}
	b.Close()
	b.Close() // twice is fine
	if err := b.Evaluate(obs, legal, priors, values); !errors.Is(err, ErrBatcherClosed) {
		t.Errorf("after Close: error %v", err)
	}
	for _, bad := range []struct {
		eval  Evaluator
		max   int
		wait  time.Duration
		label string
	}{{nil, 8, 0, "nil"}, {UniformEvaluator{}, 0, 0, "max 0"}, {UniformEvaluator{}, 8, -1, "negative wait"}} {
		if _, err := NewBatcher(bad.eval, bad.max, bad.wait); err == nil {
			t.Errorf("%s: no error", bad.label)
		}
	}
}
