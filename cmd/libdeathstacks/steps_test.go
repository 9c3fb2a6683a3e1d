package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/binding"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// caller plays the part of the Python side: it takes each batch with
// next, evaluates it with eval (n positions' observations and masks into
// logits and values) and feeds it back, until the run ends; with
// oneCall, it feeds a batch and takes the next with round.
type caller struct {
	capacity             int
	obs, logits, values  []float32
	mask                 []bool
	oneCall              bool
	batches, evaluations int
}

// callerModes are the two ways to drive a run.
var callerModes = []struct {
	name    string
	oneCall bool
}{{"next+feed", false}, {"round", true}}

func newCaller(capacity int) *caller {
	return &caller{capacity: capacity, obs: make([]float32, capacity*env.ObservationSize),
		mask: make([]bool, capacity*env.NumActions), logits: make([]float32, capacity*env.NumActions),
		values: make([]float32, capacity)}
}

// zeroLogits is the uniform evaluator: every logit and value 0.
func zeroLogits([]float32, []bool, []float32, []float32) {}

func (c *caller) drive(q *stepRun, eval func(obs []float32, mask []bool, logits, values []float32)) error {
	dst := c.arrays()
	n, err := q.next(dst, 0)
	for err == nil && n > 0 {
		c.batches++
		c.evaluations += n
		logits, values := c.logits[:n*env.NumActions], c.values[:n]
		eval(c.obs[:n*env.ObservationSize], c.mask[:n*env.NumActions], logits, values)
		if c.oneCall {
			n, err = q.round(logits, values, n, dst, 0)
			continue
		}
		if err := q.feed(logits, values, n); err != nil {
			return err
		}
		n, err = q.next(dst, 0)
	}
	return err
}

// arrays are the caller's arrays for a batch.
func (c *caller) arrays() leafArrays {
	return leafArrays{obs: c.obs, mask: c.mask}
}

// hashLogits is a deterministic evaluator that reads its input: each
// position's value and the logits of its legal actions are functions of
// its observation and the action; the logits of illegal actions are NaN,
// which the searches must never read.
func hashLogits(obs []float32, mask []bool, logits, values []float32) {
	for i := range values {
		h := hashObservation(obs[i*env.ObservationSize : (i+1)*env.ObservationSize])
		values[i] = float32(math.Tanh(h))
		for a, legal := range mask[i*env.NumActions : (i+1)*env.NumActions] {
			logits[i*env.NumActions+a] = float32(math.NaN())
			if legal {
				logits[i*env.NumActions+a] = hashLogit(h, a)
			}
		}
	}
}

func hashObservation(obs []float32) float64 {
	var h float64
	for j, x := range obs {
		h += float64(x) * float64(j%13+1)
	}
	return math.Sin(h)
}

func hashLogit(h float64, a int) float32 { return float32(3 * math.Sin(h*17+float64(a)*0.37)) }

// hashEvaluator is hashLogits as an mcts.Evaluator, the priors made as
// the leaf queue makes them.
type hashEvaluator struct{}

func (hashEvaluator) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	logits := make([]float32, env.NumActions)
	for i := range values {
		h := hashObservation(obs[i*env.ObservationSize : (i+1)*env.ObservationSize])
		values[i] = float32(math.Tanh(h))
		for _, a := range legal[i] {
			logits[a] = hashLogit(h, int(a))
		}
		if err := model.LegalSoftmax(priors[i], logits, legal[i]); err != nil {
			return err
		}
	}
	return nil
}

// testPositions are n ongoing positions of seeded random games.
func testPositions(t testing.TB, n int) ([]binding.Position, []*env.Game) {
	rng := rand.New(rand.NewPCG(5, 6))
	var ps []binding.Position
	var games []*env.Game
	for len(ps) < n {
		g := env.NewGame(env.DefaultRules())
		var moves []string
		for range len(ps) * 3 {
			legal := g.LegalMoves(nil)
			m := legal[rng.IntN(len(legal))]
			if g.Play(m) != nil || g.Status().Over() {
				break
			}
			moves = append(moves, m.String())
		}
		if g.Status().Over() {
			continue
		}
		ps = append(ps, binding.Position{Moves: moves})
		games = append(games, g)
	}
	return ps, games
}

func mustJSON(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A search driven from outside is the search with the same evaluator in
// Go: with zero logits and values, mcts.UniformEvaluator, otherwise
// hashEvaluator; the same visits, targets and moves, for PUCT and Gumbel
// roots, whichever way the caller drives it; the caller's batches hold
// the leaves of every search at once, or as many as its arrays hold.
func TestSearcherMatchesGoSearch(t *testing.T) {
	evaluators := []struct {
		name   string
		caller func(obs []float32, mask []bool, logits, values []float32)
		goSide mcts.Evaluator
	}{{"zero", zeroLogits, mcts.UniformEvaluator{}}, {"hash", hashLogits, hashEvaluator{}}}
	for _, settings := range []string{`{"sims": 100}`, `{"simulations": 64, "gumbel": true, "temperature": 1}`, `{"sims": 50, "batch_size": 1}`} {
		for _, mode := range callerModes {
			for _, ev := range evaluators {
				for _, all := range []bool{true, false} {
					name := fmt.Sprintf("%s/%s/%s/all=%v", settings, mode.name, ev.name, all)
					t.Run(name, func(t *testing.T) { testSearcherMatches(t, settings, mode.oneCall, ev.caller, ev.goSide, all) })
				}
			}
		}
	}
}

func testSearcherMatches(t *testing.T, settings string, oneCall bool, eval func(obs []float32, mask []bool, logits, values []float32), goSide mcts.Evaluator, all bool) {
	const n, seed = 6, 9
	s, err := newSearcher(settings, seed, env.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	ps, games := testPositions(t, n)
	if got, err := s.start(mustJSON(t, ps)); err != nil || got != n {
		t.Fatalf("start = %d, %v", got, err)
	}
	capacity := n * s.cfg.BatchSize
	if !all {
		capacity = 2*s.cfg.BatchSize + 1 // batches cut short, leaves left for the next
	}
	c := newCaller(capacity)
	c.oneCall = oneCall
	if err := c.drive(s.q, eval); err != nil {
		t.Fatal(err)
	}
	ds, err := s.Decisions()
	if err != nil {
		t.Fatal(err)
	}
	// (With the uniform evaluator no search ends before the others.)
	if _, uniform := goSide.(mcts.UniformEvaluator); uniform && all && float64(c.evaluations)/float64(c.batches) < float64(n) {
		t.Errorf("%d batches of %.1f positions on average: want at least one leaf of every search", c.batches, float64(c.evaluations)/float64(c.batches))
	}
	for i, g := range games {
		p, err := mcts.NewPUCTPlayer(goSide, s.cfg, env.MixSeed(seed, uint64(i), 0))
		if err != nil {
			t.Fatal(err)
		}
		want, err := p.Choose(g)
		if err != nil {
			t.Fatal(err)
		}
		got := ds[i]
		if got.Move != want.Move || fmt.Sprint(got.Visits) != fmt.Sprint(want.Visits) || fmt.Sprint(got.Target) != fmt.Sprint(want.Target) || got.Value != want.Value {
			t.Errorf("position %d: %v %v %v, want the Go search's %v %v %v", i, got.Move, got.Visits, got.Value, want.Move, want.Visits, want.Value)
		}
	}
	visits := make([]int32, n*env.NumActions)
	policy := make([]float32, n*env.NumActions)
	values := make([]float32, n)
	actions := make([]int64, n)
	if err := s.Results(n, visits, policy, values, actions); err != nil {
		t.Fatal(err)
	}
	for i, d := range ds {
		a, _ := env.ActionOf(d.Move)
		var sum float32
		for _, p := range policy[i*env.NumActions : (i+1)*env.NumActions] {
			sum += p
		}
		if actions[i] != int64(a) || visits[i*env.NumActions+int(a)] != int32(d.Visits[a]) || math.Abs(float64(sum)-1) > 1e-4 {
			t.Errorf("position %d: action %d, visits %d, policy sum %v: want %d, %d, 1", i, actions[i], visits[i*env.NumActions+int(a)], sum, a, d.Visits[a])
		}
	}
}

// Self-play driven from outside with zero logits plays the trainer's
// games with mcts.UniformEvaluator, whatever the order the searches
// queue their leaves in: the same moves and samples, game by game.
func TestSelfPlayMatchesTrainer(t *testing.T) {
	const games, seed = 4, 3
	settings := `{"simulations": 16, "fast_simulations": 4, "max_plies": 40, "win_search_nodes": 2000, "opening_plies": 2}`
	r, err := newSelfPlayRun(settings)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.start(games, seed); err != nil {
		t.Fatal(err)
	}
	c := newCaller(games * r.cfg.Search.BatchSize)
	if err := c.drive(r.q, zeroLogits); err != nil {
		t.Fatal(err)
	}
	got, err := r.Games()
	if err != nil {
		t.Fatal(err)
	}
	want := make([]train.SelfPlayGame, games)
	cfg := r.cfg
	cfg.SelfPlay.ParallelGames = 1
	if err := train.SelfPlayGames(context.Background(), cfg, mcts.UniformEvaluator{}, seed, games, func(i int, g train.SelfPlayGame) error {
		want[i] = g
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i := range games {
		if fmt.Sprint(got[i].Moves) != fmt.Sprint(want[i].Moves) || fmt.Sprint(got[i].Samples) != fmt.Sprint(want[i].Samples) {
			t.Errorf("game %d: moves %v, want the trainer's %v", i, got[i].Moves, want[i].Moves)
		}
	}
	total, err := r.Size()
	if err != nil || total == 0 {
		t.Fatalf("size = %d, %v: want samples", total, err)
	}
	n := int(total)
	obs, mask, policy := make([]float32, n*env.ObservationSize), make([]bool, n*env.NumActions), make([]float32, n*env.NumActions)
	value, game, ply := make([]float32, n), make([]int64, n), make([]int64, n)
	if err := r.Samples(n, obs, mask, policy, value, game, ply); err != nil {
		t.Fatal(err)
	}
	for k := range n {
		var sum float32
		for a, p := range policy[k*env.NumActions : (k+1)*env.NumActions] {
			if p > 0 && !mask[k*env.NumActions+a] {
				t.Fatalf("sample %d: policy on illegal action %d", k, a)
			}
			sum += p
		}
		if math.Abs(float64(sum)-1) > 1e-4 || game[k] < 0 || game[k] >= games || value[k] < -1 || value[k] > 1 {
			t.Fatalf("sample %d: policy sum %v, game %d, value %v", k, sum, game[k], value[k])
		}
	}
	plies, winner, resigned := make([]int64, games), make([]int64, games), make([]bool, games)
	if err := r.Results(games, plies, winner, resigned); err != nil {
		t.Fatal(err)
	}
	for i := range games {
		if plies[i] != int64(len(got[i].Moves)) || winner[i] < -1 || winner[i] > 1 {
			t.Errorf("game %d: %d plies, winner %d", i, plies[i], winner[i])
		}
	}
}

// Bad settings, positions and evaluations are errors that say which, and
// a run stopped by one (or by the caller) leaves the handle usable.
func TestBatchRefusals(t *testing.T) {
	settingsTests := []struct{ settings, want string }{
		{`{"sims": -1}`, "sims=-1: want a whole number, 0 (no limit, with a time) or more"},
		{`{"simulations": -1}`, "simulations=-1: want a whole number"},
		{`{"c_puct": 0}`, "c_puct=0: want a number, a number above 0"},
		{`{"no_such_key": 1}`, "no_such_key=1: no search setting: want one of simulations, "},
		{`{"model": "x"}`, "model: no search setting"},
		{`{"time": "soon"}`, "time=soon: want a duration"},
		{`{"simulations": 2, "sims": 1}`, "sims and simulations: both set simulations: give one"},
		{`{"sims": "1,c_puct=2"}`, "sims"},
		{`[1]`, "settings"},
	}
	for _, tt := range settingsTests {
		t.Run("search settings "+tt.settings, func(t *testing.T) {
			if _, err := newSearcher(tt.settings, 1, env.DefaultRules()); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one naming %s", err, tt.want)
			}
		})
	}
	for _, tt := range []struct{ settings, want string }{
		{`{"resign_threshold": 2}`, "resign_threshold=2: want -1 to 0"},
		{`{"max_plies": 0}`, "max_plies"},
		{`{"games_per_iteration": 3}`, "games_per_iteration"},
		{`{"simulations": 8, "fast_simulations": 8}`, "fast_simulations"},
		{`{"sims": 8, "simulations": 9}`, "sims and simulations: both set simulations"},
		{`{"gumbel": "maybe"}`, "gumbel"},
	} {
		t.Run("self-play settings "+tt.settings, func(t *testing.T) {
			_, err := newSelfPlayRun(tt.settings)
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "line ") {
				t.Fatalf("error %v, want one naming %s without a line", err, tt.want)
			}
		})
	}
	s, err := newSearcher(`{"sims": 30}`, 1, env.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ positions, want string }{
		{`[{"fen": ""}, {"fen": "not a fen"}]`, "position 1"},
		{`[{}, {}, {"moves": ["a6-2-a4", "z9-1-a1"]}]`, "position 2"},
		{`{"fen": ""}`, "positions"},
	} {
		t.Run("positions "+tt.positions, func(t *testing.T) {
			if _, err := s.start(tt.positions); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one naming %s", err, tt.want)
			}
		})
	}
	evalTests := []struct {
		name string
		eval func(obs []float32, mask []bool, logits, values []float32)
		want string
	}{
		{"nan value", func(_ []float32, _ []bool, _, values []float32) { values[len(values)-1] = float32(math.NaN()) }, "the evaluator returned NaN for the value of position "},
		{"value above 1", func(_ []float32, _ []bool, _, values []float32) { values[0] = 1.5 }, "the evaluator returned 1.5 for the value of position 0 of the batch: values must be finite, in [-1, 1]"},
		{"infinite legal logit", func(_ []float32, mask []bool, logits, _ []float32) {
			a := slices.Index(mask, true)
			logits[a] = float32(math.Inf(1))
		}, "for the logit of legal action "},
	}
	for _, tt := range evalTests {
		for _, mode := range callerModes {
			t.Run(tt.name+"/"+mode.name, func(t *testing.T) {
				ps, _ := testPositions(t, 3)
				if _, err := s.start(mustJSON(t, ps)); err != nil {
					t.Fatal(err)
				}
				c := newCaller(64)
				c.oneCall = mode.oneCall
				err := c.drive(s.q, tt.eval)
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error %v, want %q", err, tt.want)
				}
				if _, err := s.Decisions(); err == nil {
					t.Fatal("a failed run has results")
				}
			})
		}
	}
	t.Run("abort, then a run", func(t *testing.T) {
		ps, _ := testPositions(t, 4)
		if _, err := s.start(mustJSON(t, ps)); err != nil {
			t.Fatal(err)
		}
		c := newCaller(64)
		if _, err := s.start(mustJSON(t, ps)); err == nil || !strings.Contains(err.Error(), "under way") {
			t.Fatalf("a second start during a run: %v", err)
		}
		if n, err := s.q.next(c.arrays(), 0); err != nil || n == 0 {
			t.Fatalf("next = %d, %v", n, err)
		}
		if _, err := s.q.next(c.arrays(), 0); err == nil || !strings.Contains(err.Error(), "not fed") {
			t.Fatalf("next twice: %v", err)
		}
		s.q.abort(0)
		if _, err := s.Decisions(); err == nil {
			t.Fatal("an aborted run has results")
		}
		if err := c.drive(s.q, zeroLogits); err == nil {
			t.Fatal("an aborted run goes on")
		}
		if _, err := s.start(mustJSON(t, ps)); err != nil {
			t.Fatal(err)
		}
		if err := c.drive(s.q, zeroLogits); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Decisions(); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a round from another thread", func(t *testing.T) {
		ps, _ := testPositions(t, 3)
		if _, err := s.start(mustJSON(t, ps)); err != nil {
			t.Fatal(err)
		}
		c := newCaller(64)
		n, err := s.q.round(nil, nil, 0, c.arrays(), 1)
		if err != nil || n == 0 {
			t.Fatalf("round = %d, %v", n, err)
		}
		for _, call := range []func() error{
			func() error {
				_, err := s.q.round(c.logits[:n*env.NumActions], c.values[:n], n, c.arrays(), 2)
				return err
			},
			func() error { _, err := s.q.next(c.arrays(), 2); return err },
		} {
			if err := call(); err == nil || !strings.Contains(err.Error(), "one thread") {
				t.Fatalf("a call from another thread: %v", err)
			}
		}
		for n > 0 && err == nil {
			n, err = s.q.round(c.logits[:n*env.NumActions], c.values[:n], n, c.arrays(), 1)
		}
		if _, err := s.Decisions(); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("small arrays, wrong feed", func(t *testing.T) {
		ps, _ := testPositions(t, 2)
		if _, err := s.start(mustJSON(t, ps)); err != nil {
			t.Fatal(err)
		}
		small := newCaller(s.cfg.BatchSize - 1)
		if _, err := s.q.next(small.arrays(), 0); err == nil || !strings.Contains(err.Error(), "batch_size") {
			t.Fatalf("next with room for %d: %v", small.capacity, err)
		}
		if _, err := s.q.round(nil, nil, 0, small.arrays(), 0); err == nil || !strings.Contains(err.Error(), "batch_size") {
			t.Fatalf("round with room for %d: %v", small.capacity, err)
		}
		c := newCaller(64)
		if _, err := s.q.round(c.logits[:env.NumActions], c.values[:1], 1, c.arrays(), 0); err == nil || !strings.Contains(err.Error(), "no batch to feed") {
			t.Fatalf("round feeding before any batch: %v", err)
		}
		n, err := s.q.next(c.arrays(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.q.feed(c.logits[:(n+1)*env.NumActions], c.values[:n+1], n+1); err == nil || !strings.Contains(err.Error(), "for a batch of") {
			t.Fatalf("feed of %d for %d: %v", n+1, n, err)
		}
		if err := s.close(); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzBatchSettings throws text at the readers of the caller's settings
// and positions: an error or a run, never a panic; a run started is
// stopped and ends.
func FuzzBatchSettings(f *testing.F) {
	for _, s := range []string{`{"sims": 8}`, `{"gumbel": true, "sims": 4}`, `{"resign_threshold": -1, "max_plies": 10}`,
		`[{"fen": ""}]`, `[{"moves": ["a6-2-a4"]}]`, `{"time": "1ms"}`, `null`, `{"sims": 1e99}`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if r, err := newSelfPlayRun(text); err == nil && r.cfg.Search.Simulations > 1000 {
			t.Skip("a search too long to fuzz")
		}
		s, err := newSearcher(text, 1, env.DefaultRules())
		if err != nil {
			s, err = newSearcher(`{"sims": 4, "win_search_plies": 0}`, 1, env.DefaultRules())
			if err != nil {
				t.Fatal(err)
			}
		}
		if s.cfg.Simulations > 1000 || s.cfg.Time > 0 {
			return
		}
		if n, err := s.start(text); err == nil && n > 0 {
			s.q.abort(0)
			if !s.q.Over() {
				t.Fatal("an aborted run goes on")
			}
		}
	})
}

// Many runs at once, each with its own caller, and aborts in the middle
// (between two rounds, as the library's handle lock orders them): for
// -race.
func TestBatchRunsConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	for k := range 4 {
		wg.Go(func() {
			s, err := newSearcher(`{"sims": 40, "batch_size": 4}`, uint64(k), env.DefaultRules())
			if err != nil {
				t.Error(err)
				return
			}
			ps, _ := testPositions(t, 5)
			if _, err := s.start(mustJSON(t, ps)); err != nil {
				t.Error(err)
				return
			}
			c := newCaller(7) // room for one search's batch and a bit: partial rounds
			c.oneCall = k >= 2
			rounds := 0
			err = c.drive(s.q, func(_ []float32, _ []bool, _, values []float32) {
				rounds++
				if k%2 == 1 && rounds == 5 {
					s.q.abort(0)
				}
			})
			if k%2 == 0 && err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// BenchmarkSearchBoundary is the cost of the boundary: searches stepped
// by a caller's rounds with zero logits (positions searched together,
// one caller batch a round; "queue" in the names, as before steps.go),
// against the same searches with
// mcts.UniformEvaluator called directly, one position at a time on one
// goroutine as `deathstacks bench mcts` runs them (800 simulations,
// mcts.DefaultConfig, no tree reuse). Both report simulations per second.
// The queue is driven both ways (next+feed, and round: ds_batch_round),
// and, as a call from C runs, from a goroutine locked to its thread.
// cpu-ns/sim is the process's CPU time a simulation, the figure to compare
// on a shared machine.
func BenchmarkSearchBoundary(b *testing.B) {
	ps, games := testPositions(b, 64)
	for _, mode := range callerModes {
		for _, locked := range []bool{false, true} {
			for _, n := range []int{4, 16, 64} {
				b.Run(fmt.Sprintf("queue/%s/locked=%v/positions=%d", mode.name, locked, n), func(b *testing.B) {
					if locked {
						runtime.LockOSThread()
						defer runtime.UnlockOSThread()
					}
					s, err := newSearcher(`{"sims": 800, "reuse_tree": false, "win_search_nodes": 500000}`, 1, env.DefaultRules())
					if err != nil {
						b.Fatal(err)
					}
					c := newCaller(n * s.cfg.BatchSize)
					c.oneCall = mode.oneCall
					cpu := cpuTime(b)
					text := mustJSON(b, ps[:n])
					sims := 0
					for b.Loop() {
						if _, err := s.start(text); err != nil {
							b.Fatal(err)
						}
						if err := c.drive(s.q, zeroLogits); err != nil {
							b.Fatal(err)
						}
						ds, err := s.Decisions()
						if err != nil {
							b.Fatal(err)
						}
						for _, d := range ds {
							sims += d.Simulations
						}
					}
					b.ReportMetric(float64(sims)/b.Elapsed().Seconds(), "sims/s")
					b.ReportMetric(float64(c.evaluations)/float64(c.batches), "positions/batch")
					b.ReportMetric(float64(cpuTime(b)-cpu)/float64(sims), "cpu-ns/sim")
				})
			}
		}
	}
	b.Run("direct", func(b *testing.B) {
		cfg := mcts.DefaultConfig()
		cfg.Simulations, cfg.ReuseTree = 800, false
		p, err := mcts.NewPUCTPlayer(mcts.UniformEvaluator{}, cfg, 1)
		if err != nil {
			b.Fatal(err)
		}
		sims, cpu := 0, cpuTime(b)
		for b.Loop() {
			for _, g := range games[:16] {
				d, err := p.Choose(g)
				if err != nil {
					b.Fatal(err)
				}
				sims += d.Simulations
			}
		}
		b.ReportMetric(float64(sims)/b.Elapsed().Seconds(), "sims/s")
		b.ReportMetric(float64(cpuTime(b)-cpu)/float64(sims), "cpu-ns/sim")
	})
}

// cpuTime is the CPU time the process has used, user and system, in
// nanoseconds: what a benchmark costs on a machine shared with other
// work, whose wall time says little.
func cpuTime(b *testing.B) int64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return u.Utime.Nano() + u.Stime.Nano()
}

// BenchmarkSelfPlayTrainer is the Go trainer's self-play as an iteration
// of `deathstacks train` plays it (configs/default.yaml: 16 games at
// once) on the built-in player's network through its batching server:
// the training positions a second that self-play from Python with the
// same network in PyTorch (bench.py selfplay torch) is compared with.
func BenchmarkSelfPlayTrainer(b *testing.B) {
	cfg := runconfig.Defaults()
	eval, _, err := models().Load("")
	if err != nil {
		b.Fatal(err)
	}
	srv, ok := eval.(interface{ Stats() model.ServerStats })
	if !ok {
		b.Fatalf("the built-in player's evaluator %T is not a server", eval)
	}
	before := srv.Stats().Positions
	const games = 32
	positions := 0
	for b.Loop() {
		if err := train.SelfPlayGames(context.Background(), cfg, eval, 1, games, func(_ int, g train.SelfPlayGame) error {
			positions += len(g.Samples)
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(positions)/b.Elapsed().Seconds(), "positions/s")
	b.ReportMetric(float64(srv.Stats().Positions-before)/b.Elapsed().Seconds(), "evaluations/s")
}

// BenchmarkSelfPlayRounds is self-play from Python as bench.py selfplay
// runs it (the trainer's settings, every game at once), the evaluator the
// built-in player's network in Go: an op is a round. It reports the
// round's Go side (feeding the priors, stepping every game to its next
// leaves) in wall microseconds a leaf, and the share of the wall time in
// the evaluator, which is what self-play from Python can reach with a
// network as fast as Go's.
func BenchmarkSelfPlayRounds(b *testing.B) {
	for _, games := range []int{128, 256} {
		b.Run(fmt.Sprintf("games=%d", games), func(b *testing.B) {
			nw, err := newNetwork("")
			if err != nil {
				b.Fatal(err)
			}
			r, err := newSelfPlayRun(`{}`)
			if err != nil {
				b.Fatal(err)
			}
			c := newCaller(games * r.cfg.Search.BatchSize)
			dst := c.arrays()
			var evalNs, goNs, leaves int64
			seed, n := uint64(0), 0
			timed := func(f func() error) int64 {
				start := time.Now()
				if err := f(); err != nil {
					b.Fatal(err)
				}
				return int64(time.Since(start))
			}
			for b.Loop() {
				if n == 0 { // a new run: every game from the start
					seed++
					if _, err := r.start(int64(games), seed); err != nil {
						b.Fatal(err)
					}
					goNs += timed(func() (err error) { n, err = r.q.next(dst, 0); return err })
				}
				leaves += int64(n)
				logits, values := c.logits[:n*env.NumActions], c.values[:n]
				evalNs += timed(func() error { return nw.Predict(c.obs[:n*env.ObservationSize], n, logits, values) })
				goNs += timed(func() (err error) { n, err = r.q.round(logits, values, n, dst, 0); return err })
			}
			if !r.q.Over() {
				r.q.abort(0)
			}
			b.ReportMetric(float64(leaves)/float64(b.N), "leaves/round")
			b.ReportMetric(float64(goNs)/1e3/float64(leaves), "go-us/leaf")
			b.ReportMetric(float64(evalNs)/1e3/float64(leaves), "eval-us/leaf")
			b.ReportMetric(float64(evalNs)/float64(evalNs+goNs), "eval-share")
		})
	}
}
