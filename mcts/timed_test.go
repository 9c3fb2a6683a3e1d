package mcts

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/internal/clock"
	"github.com/deathstacks/deathstacks/mcts/internal/testgames"
)

// These tests run timed searches on a fake clock, never on the wall
// clock: time passes only in the evaluator, a millisecond a call (about a
// network's pace), so a search's simulations, and when it stops, are the
// same on any machine under any load. The evaluator records when each of
// its calls starts, and a search keeps its time when at most one call
// (the batch in flight when the time ran out) starts after its limit.

// fakeClock is a test's clock for timed searches (see search.now): it
// stands still but for advance, and moves on by step at every reading.
type fakeClock struct {
	t    time.Time
	step time.Duration
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) now() time.Time {
	t := c.t
	c.t = c.t.Add(c.step)
	return t
}

func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// sleepyEvaluator is an evaluator that takes delay of a fake clock a call,
// recording when each call starts.
type sleepyEvaluator struct {
	delay time.Duration
	clock *fakeClock
	inner Evaluator
	calls []time.Time
}

func (e *sleepyEvaluator) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	e.calls = append(e.calls, e.clock.now())
	e.clock.advance(e.delay)
	return e.inner.Evaluate(obs, legal, priors, values)
}

// callsAfter returns the calls that started later than limit after the
// first one (the root's evaluation, which comes after the search's clock
// started: a call this late came after the search's own limit too).
func (e *sleepyEvaluator) callsAfter(limit time.Duration) int {
	n := 0
	for _, c := range e.calls {
		if c.Sub(e.calls[0]) > limit {
			n++
		}
	}
	return n
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

// timedChoose runs one search of g on a fake clock, with the uniform
// evaluator taking a millisecond a call, and returns its decision, the
// time it took on the clock and the evaluator.
func timedChoose(t *testing.T, cfg Config, g *env.Game) (Decision, time.Duration, *sleepyEvaluator) {
	t.Helper()
	return timedChooseWith(t, UniformEvaluator{}, cfg, g, newFakeClock())
}

func timedChooseWith(t *testing.T, eval Evaluator, cfg Config, g *env.Game, clk *fakeClock) (Decision, time.Duration, *sleepyEvaluator) {
	t.Helper()
	sleepy := &sleepyEvaluator{delay: time.Millisecond, clock: clk, inner: eval}
	p := newPUCT(t, sleepy, cfg, 1)
	p.s.now = clk.now
	start := clk.t
	d, err := p.Choose(g)
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, p.s)
	return d, clk.t.Sub(start), sleepy
}

func TestTimedSearchKeepsItsTime(t *testing.T) {
	const limit = 150 * time.Millisecond
	for name, cfg := range timedConfigs(limit) {
		t.Run(name, func(t *testing.T) {
			d, took, eval := timedChoose(t, cfg, env.NewGame(env.DefaultRules()))
			// The clock is read after every batch: one batch may start
			// before the limit is reached and end after it, no other.
			if late := eval.callsAfter(limit); late > 1 {
				t.Errorf("%d evaluator calls started after the %v limit (of %d, in %v): want at most one", late, limit, len(eval.calls), took)
			}
			// Near the end the lead of the most visited move may pass the
			// few simulations left, but not long before.
			if took < limit*3/4 || took > limit+time.Millisecond {
				t.Errorf("took %v: want to stop within a call of its %v, not long before, in an undecided position", took, limit)
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
			short, _, _ := timedChoose(t, timedConfigs(40 * time.Millisecond)[name], env.NewGame(env.DefaultRules()))
			long, _, _ := timedChoose(t, timedConfigs(240 * time.Millisecond)[name], env.NewGame(env.DefaultRules()))
			// Six times the time: ask for more simulations.
			if long.Simulations <= short.Simulations {
				t.Errorf("%d simulations in 40ms, %d in 240ms: want more", short.Simulations, long.Simulations)
			}
		})
	}
}

func TestTimedSearchSimulationLimit(t *testing.T) {
	// With both limits the simulations end first here (64 simulations
	// take some 10 calls of a millisecond).
	for name, cfg := range timedConfigs(5 * time.Second) {
		t.Run(name, func(t *testing.T) {
			cfg.Simulations = 64
			d, _, _ := timedChoose(t, cfg, env.NewGame(env.DefaultRules()))
			if d.Simulations != 64 {
				t.Errorf("%d simulations: want 64, the limit that ends first", d.Simulations)
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
				d, took, eval := timedChoose(t, cfg, g)
				// Two seconds afford thousands of simulations: a decided
				// search stops after the batch that finds the win.
				if len(eval.calls) > 8 {
					t.Errorf("%d evaluator calls (%d simulations, %v) with a win in one: want a few", len(eval.calls), d.Simulations, took)
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
		// time, and the search plays it (when it stops is
		// TestCannotBeOvertaken's, on a clock of its own).
		m := mustMoves(t, "a6-2-a4")[0]
		cfg := timedConfigs(limit)["puct"]
		d, took, _ := timedChooseWith(t, favourEvaluator{mustAction(t, m): true}, cfg, env.NewGame(env.DefaultRules()), newFakeClock())
		if d.Move != m {
			t.Errorf("played %v after %v of %v: want %v", d.Move, took, limit, m)
		}
	})
}

// TestCannotBeOvertaken checks the early stop of a timed PUCT search on a
// tree of known visits and a clock set by hand: the most visited move is
// decided once its lead passes the simulations the time left affords at
// the rate so far, and not before.
func TestCannotBeOvertaken(t *testing.T) {
	m := mustMoves(t, "a6-2-a4")[0]
	cfg := DefaultConfig()
	cfg.Simulations = 200
	p := newPUCT(t, favourEvaluator{mustAction(t, m): true}, cfg, 1)
	if _, err := p.Choose(env.NewGame(env.DefaultRules())); err != nil {
		t.Fatal(err)
	}
	s := p.s
	var visits []int
	for _, ch := range s.rootChildren() {
		visits = append(visits, int(ch.N))
	}
	slices.Sort(visits)
	lead := visits[len(visits)-1] - visits[len(visits)-2] // the most visited move's over the second's
	if s.ran != 200 || lead < 150 {
		t.Fatalf("%d simulations, a lead of %d: want 200 and most of them", s.ran, lead)
	}
	cases := []struct {
		name          string
		elapsed, left time.Duration // of the search's time
		limit         int           // simulations
		want          bool
	}{
		// 200 simulations a second so far.
		{"a second left affords 200", time.Second, time.Second, math.MaxInt, false},
		{"half a second left affords 100", time.Second, time.Second / 2, math.MaxInt, true},
		{"the simulations left are fewer", time.Second, time.Hour, 250, true},
		{"the simulations left are more", time.Second, time.Second, 10000, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clk := newFakeClock()
			s.clock = clock.Start(tc.elapsed+tc.left, clk.now)
			clk.advance(tc.elapsed)
			if got := s.cannotBeOvertaken(tc.limit); got != tc.want {
				t.Errorf("a lead of %d after 200 simulations in %v, %v left, a limit of %d: cannot be overtaken %v, want %v",
					lead, tc.elapsed, tc.left, tc.limit, got, tc.want)
			}
		})
	}
}

func TestTimedSearchRunsABatch(t *testing.T) {
	// A time shorter than one evaluator call still gets a batch of
	// simulations, not a move chosen on the prior alone.
	for name, cfg := range timedConfigs(time.Microsecond) {
		t.Run(name, func(t *testing.T) {
			d, _, _ := timedChoose(t, cfg, env.NewGame(env.DefaultRules()))
			if d.Simulations < 1 {
				t.Errorf("%d simulations: want a batch", d.Simulations)
			}
		})
	}
}

// TestTimedSearchOfAProvenTree: one ply before the move limit every root
// move ends the game, so after one batch no simulation reaches the
// evaluator; a search with a time and no simulation limit must still stop
// rather than go round the proven tree for ever. Here the clock moves on a
// millisecond at every reading too, since no evaluation moves it:
// the search must come back to read it (a search that did not would hang
// until go test's timeout).
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
			clk := newFakeClock()
			clk.step = time.Millisecond
			d, took, _ := timedChooseWith(t, UniformEvaluator{}, cfg, g, clk)
			if took > 40*time.Millisecond {
				t.Errorf("a 30ms search of a proven tree took %v (%d simulations): want it to stop at its time", took, d.Simulations)
			}
		})
	}
}
