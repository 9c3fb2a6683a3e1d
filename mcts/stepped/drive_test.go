package stepped

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
)

// countingEvaluator is rowEvaluator counting its calls, failing from call
// failAt on (0: never), or at that call giving its last leaf the value
// bad, or panicking when bad is infinite.
type countingEvaluator struct {
	calls  atomic.Int64
	failAt int64
	bad    float32
}

func (e *countingEvaluator) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	call := e.calls.Add(1)
	if e.failAt > 0 && call >= e.failAt && e.bad == 0 {
		return errors.New("the network is gone")
	}
	if e.failAt > 0 && call == e.failAt && math.IsInf(float64(e.bad), 0) {
		panic("the network broke")
	}
	if err := (rowEvaluator{}).Evaluate(obs, legal, priors, values); err != nil {
		return err
	}
	if e.failAt > 0 && call == e.failAt {
		values[len(values)-1] = e.bad
	}
	return nil
}

func TestDriveSearchesAsTheirEvaluatorWould(t *testing.T) {
	puct, gumbel := searchConfigs()
	for _, tc := range []struct {
		name             string
		cfg              mcts.Config
		positions, lanes int
	}{
		{"puct/one lane", puct, 7, 1},
		{"puct/two lanes", puct, 7, 2},
		{"puct/more lanes than searches", puct, 3, 5},
		{"gumbel/three lanes", gumbel, 8, 3},
		{"no positions", puct, 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			games := steppedGames(t, tc.positions)
			want := directDecisions(t, games, tc.cfg)
			got := make([]mcts.Decision, len(games))
			evals := make([]mcts.Evaluator, tc.lanes)
			counters := make([]*countingEvaluator, tc.lanes)
			for i := range evals {
				counters[i] = &countingEvaluator{}
				evals[i] = counters[i]
			}
			stats, err := Drive(searchWorks(t, games, tc.cfg, got), tc.cfg.BatchSize, evals)
			if err != nil {
				t.Fatal(err)
			}
			sameDecisions(t, got, want)
			var calls int64
			for _, c := range counters {
				calls += c.calls.Load()
			}
			if calls != stats.Batches {
				t.Errorf("%d batches counted, %d evaluator calls", stats.Batches, calls)
			}
			if tc.positions > 0 && stats.Positions < int64(tc.positions*tc.cfg.Simulations)/int64(tc.cfg.BatchSize) {
				t.Errorf("%d positions evaluated for %d searches of %d simulations", stats.Positions, tc.positions, tc.cfg.Simulations)
			}
			if tc.positions > tc.lanes && stats.Positions <= stats.Batches*int64(tc.cfg.BatchSize) {
				t.Errorf("%d positions in %d batches: the searches' leaves were not batched together", stats.Positions, stats.Batches)
			}
		})
	}
}

func TestDriveEndsWithTheFirstError(t *testing.T) {
	cfg := mcts.DefaultConfig()
	cfg.Simulations, cfg.BatchSize = 40, 2
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		// failAt and bad make the evaluator fail (see countingEvaluator);
		// failing says which works return boom at once.
		failAt  int64
		bad     float32
		failing func(i int) bool
		want    string
	}{
		{"a work fails", 0, 0, func(i int) bool { return i == 3 }, "work 3: boom"},
		{"a work panics", 0, 0, func(i int) bool { return i == 4 }, "internal error (please report): work 4"},
		{"the evaluator fails", 5, 0, func(int) bool { return false }, "evaluating a batch of"},
		{"a value out of range", 3, 1.5, func(int) bool { return false }, "returned 1.5 for the value"},
		{"a NaN value", 3, float32(math.NaN()), func(int) bool { return false }, "returned NaN for the value"},
		{"the evaluator panics", 4, float32(math.Inf(1)), func(int) bool { return false }, "internal error (please report): the network broke"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			works, got := make([]Work, 6), make([]error, 6)
			for i := range works {
				works[i] = func(eval mcts.Evaluator) error {
					if tc.failing(i) {
						if i == 4 {
							panic(fmt.Sprintf("work %d", i))
						}
						return fmt.Errorf("work %d: %w", i, boom)
					}
					p, err := mcts.NewPUCTPlayer(eval, cfg, uint64(i))
					if err != nil {
						return err
					}
					for _, g := range steppedGames(t, 3) {
						if _, err = p.Choose(g); err != nil {
							break
						}
					}
					got[i] = err
					return err
				}
			}
			eval := &countingEvaluator{failAt: tc.failAt, bad: tc.bad}
			_, err := Drive(works, cfg.BatchSize, []mcts.Evaluator{eval, eval})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
			aborted := 0
			for _, e := range got {
				if errors.Is(e, ErrAborted) {
					aborted++
				}
			}
			if aborted == 0 {
				t.Errorf("no search was aborted: %v", got)
			}
		})
	}
}

func TestDriveRefusesBadArguments(t *testing.T) {
	if _, err := Drive(nil, 8, nil); err == nil || !strings.Contains(err.Error(), "no evaluator") {
		t.Errorf("no evaluators: %v", err)
	}
	if _, err := Drive(nil, 0, []mcts.Evaluator{rowEvaluator{}}); err == nil || !strings.Contains(err.Error(), "want at least 1") {
		t.Errorf("no leaves: %v", err)
	}
	cfg := mcts.DefaultConfig()
	works := searchWorks(t, steppedGames(t, 1), cfg, make([]mcts.Decision, 1))
	if _, err := Drive(works, cfg.BatchSize-1, []mcts.Evaluator{rowEvaluator{}}); err == nil || !strings.Contains(err.Error(), "leaves at once") {
		t.Errorf("a search asking for more leaves than its room: %v", err)
	}
}

func BenchmarkDrive(b *testing.B) {
	cfg := mcts.DefaultConfig()
	cfg.Simulations = 64
	games := steppedGames(b, 16)
	out := make([]mcts.Decision, len(games))
	evals := []mcts.Evaluator{rowEvaluator{}, rowEvaluator{}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Drive(searchWorks(b, games, cfg, out), cfg.BatchSize, evals); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(games)*cfg.Simulations)/b.Elapsed().Seconds(), "sims/s")
}
