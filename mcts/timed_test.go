package mcts

import (
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/internal/testgames"
)

// sleepyEvaluator is an evaluator slowed down to about a network's pace,
// so that a timed search's simulation count depends on its time and hardly
// on the machine's load.
type sleepyEvaluator struct {
	delay time.Duration
	inner Evaluator
}

func (e sleepyEvaluator) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	time.Sleep(e.delay)
	return e.inner.Evaluate(obs, legal, priors, values)
}

// timedConfigs are a PUCT and a Gumbel root searching for limit without a
// simulation limit.
func timedConfigs(limit time.Duration) map[string]Config {
	puct := DefaultConfig()
	puct.Simulations, puct.Time = 0, limit
	gumbel := gumbelConfig(1, 16, 8)
	gumbel.Simulations, gumbel.Time = 0, limit
	return map[string]Config{"puct": puct, "gumbel": gumbel}
}

// timedChoose runs one search of g, with the uniform evaluator taking a
// millisecond a batch, and returns its decision and wall time.
func timedChoose(t *testing.T, cfg Config, g *env.Game) (Decision, time.Duration) {
	t.Helper()
	return timedChooseWith(t, UniformEvaluator{}, cfg, g)
}

func timedChooseWith(t *testing.T, eval Evaluator, cfg Config, g *env.Game) (Decision, time.Duration) {
	t.Helper()
	p := newPUCT(t, sleepyEvaluator{time.Millisecond, eval}, cfg, 1)
	start := time.Now()
	d, err := p.Choose(g)
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, p.s)
	return d, time.Since(start)
}

func TestTimedSearchKeepsItsTime(t *testing.T) {
	const limit = 150 * time.Millisecond
	// One batch (a millisecond's sleep) can overrun the limit; the rest
	// of the margin is for a loaded machine.
	const margin = 100 * time.Millisecond
	for name, cfg := range timedConfigs(limit) {
		t.Run(name, func(t *testing.T) {
			d, took := timedChoose(t, cfg, env.NewGame(env.DefaultRules()))
			if took > limit+margin {
				t.Errorf("took %v: want at most %v + %v", took, limit, margin)
			}
			// Near the end the lead of the most visited move may pass the
			// few simulations left, but not long before.
			if took < limit*3/4 {
				t.Errorf("took %v: stopped long before its %v in an undecided position", took, limit)
			}
			if d.Simulations < 1 || sumVisits(d) != d.Simulations {
				t.Errorf("%d simulations, %d root visits: want as many, at least one", d.Simulations, sumVisits(d))
			}
		})
	}
}

func TestTimedSearchRunsMoreWithMoreTime(t *testing.T) {
	for name := range timedConfigs(0) {
		t.Run(name, func(t *testing.T) {
			short, _ := timedChoose(t, timedConfigs(40 * time.Millisecond)[name], env.NewGame(env.DefaultRules()))
			long, _ := timedChoose(t, timedConfigs(240 * time.Millisecond)[name], env.NewGame(env.DefaultRules()))
			// Six times the time: ask for well over twice the simulations.
			if long.Simulations < 2*short.Simulations {
				t.Errorf("%d simulations in 40ms, %d in 240ms: want more than twice as many", short.Simulations, long.Simulations)
			}
		})
	}
}

func TestTimedSearchSimulationLimit(t *testing.T) {
	// With both limits the simulations end first here.
	for name, cfg := range timedConfigs(5 * time.Second) {
		t.Run(name, func(t *testing.T) {
			cfg.Simulations = 64
			d, took := timedChoose(t, cfg, env.NewGame(env.DefaultRules()))
			if d.Simulations != 64 || took > 2*time.Second {
				t.Errorf("%d simulations in %v: want 64, long before the 5s", d.Simulations, took)
			}
		})
	}
}

func TestTimedSearchStopsWhenDecided(t *testing.T) {
	const limit = 2 * time.Second
	for i, tc := range testgames.WinInOneFENs[:2] {
		for name, cfg := range timedConfigs(limit) {
			t.Run(tc.Name+"/"+name, func(t *testing.T) {
				g := testgames.GameFromFEN(t, tc.FEN)
				d, took := timedChoose(t, cfg, g)
				if took > limit/4 {
					t.Errorf("took %v of %v with a win in one (%d simulations)", took, limit, d.Simulations)
				}
				if wins := testgames.WinningMoves(g.Position(), true); !testgames.ContainsMove(wins, d.Move) {
					t.Errorf("position %d: played %v: want a win of %v", i, d.Move, wins)
				}
			})
		}
	}
	t.Run("visits cannot be overtaken", func(t *testing.T) {
		// A prior a hundred times the others' gives one move nearly every
		// visit: its lead passes the simulations left after about half the
		// time.
		m := mustMoves(t, "a6-2-a4")[0]
		cfg := timedConfigs(limit)["puct"]
		d, took := timedChooseWith(t, favourEvaluator{mustAction(t, m): true}, cfg, env.NewGame(env.DefaultRules()))
		if took > limit*3/4 || d.Move != m {
			t.Errorf("played %v after %v of %v: want %v, early", d.Move, took, limit, m)
		}
	})
}

func TestTimedSearchRunsABatch(t *testing.T) {
	// A time shorter than one evaluator call still gets a batch of
	// simulations, not a move chosen on the prior alone.
	for name, cfg := range timedConfigs(time.Microsecond) {
		t.Run(name, func(t *testing.T) {
			d, _ := timedChoose(t, cfg, env.NewGame(env.DefaultRules()))
			if d.Simulations < 1 {
				t.Errorf("%d simulations: want a batch", d.Simulations)
			}
		})
	}
}

// TestTimedSearchOfAProvenTree: one ply before the move limit every root
// move ends the game, so after one batch no simulation reaches the
// evaluator; a search with a time and no simulation limit must still stop
// on time rather than go round the proven tree for ever.
func TestTimedSearchOfAProvenTree(t *testing.T) {
	rules := env.DefaultRules()
	rules.MaxPlies = 9
	g := env.NewGame(rules)
	for !g.Status().Over() && len(g.Moves()) < rules.MaxPlies-1 {
		pos := g.Position()
		if err := g.Play(pos.LegalMoves(nil, rules.TooTall)[0]); err != nil {
			t.Fatal(err)
		}
	}
	if g.Status().Over() {
		t.Fatalf("the game ended at ply %d: want it one ply before the limit", len(g.Moves()))
	}
	for name, cfg := range timedConfigs(30 * time.Millisecond) {
		t.Run(name, func(t *testing.T) {
			done := make(chan time.Duration, 1)
			go func() {
				_, took := timedChoose(t, cfg, g)
				done <- took
			}()
			select {
			case took := <-done:
				if took > time.Second {
					t.Errorf("took %v for a 30ms search", took)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the search of a proven tree did not stop in 10s")
			}
		})
	}
}
