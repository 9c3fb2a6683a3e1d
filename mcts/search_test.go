package mcts

import (
	"errors"
	"hash/fnv"
	"math"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/internal/arena"
	"github.com/deathstacks/deathstacks/mcts/internal/testgames"
)

// hashEvaluator is a deterministic, pure test evaluator with uneven priors
// and values: both come from a hash of the observation, so different
// positions get different numbers. It is safe for concurrent use.
type hashEvaluator struct{}

func (hashEvaluator) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	for i := range values {
		h := fnv.New64a()
		o := obs[i*env.ObservationSize : (i+1)*env.ObservationSize]
		h.Write(unsafe.Slice((*byte)(unsafe.Pointer(&o[0])), len(o)*4))
		x := h.Sum64()
		for j, a := range legal[i] {
			priors[i][j] = 1 + float32((x>>(j%50)^uint64(a))%7)
		}
		values[i] = float32(int(x%201)-100) / 100
	}
	return nil
}

// countingEvaluator wraps an evaluator with a lock and counts the calls,
// the positions and the largest batch.
type countingEvaluator struct {
	mu                      sync.Mutex
	inner                   Evaluator
	calls, positions, maxed int
}

func (c *countingEvaluator) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	c.positions += len(values)
	c.maxed = max(c.maxed, len(values))
	return c.inner.Evaluate(obs, legal, priors, values)
}

// treeOnlyConfig is DefaultConfig without the root's win search and the
// material term, for the tests of what the tree itself finds and of the
// values it backs up: with the win search a won position would be decided
// before the tree is searched, and the material term mixes the board into
// the evaluator's values.
func treeOnlyConfig() Config {
	cfg := DefaultConfig()
	cfg.WinSearchPlies, cfg.MaterialUtility = 0, 0
	return cfg
}

func newPUCT(t testing.TB, eval Evaluator, cfg Config, seed uint64) *PUCTPlayer {
	t.Helper()
	p, err := NewPUCTPlayer(eval, cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkTree verifies the invariants of a tree after a search: no virtual
// loss left, nothing pending, and every expanded node's visits are its own
// evaluation plus its children's visits.
func checkTree(t *testing.T, s *search) {
	t.Helper()
	var check func(i int32)
	check = func(i int32) {
		nd := s.nodes.At(i)
		if nd.Inflight != 0 {
			t.Fatalf("node %d: %d simulations still in flight", i, nd.Inflight)
		}
		if nd.State == arena.Pending {
			t.Fatalf("node %d: still pending", i)
		}
		if nd.State != arena.Expanded {
			return
		}
		sum := int32(1)
		for c := nd.First; c < nd.First+int32(nd.Count); c++ {
			sum += s.nodes.At(c).N
			check(c)
		}
		if sum != nd.N {
			t.Fatalf("node %d: %d visits, but 1 + children's visits = %d", i, nd.N, sum)
		}
	}
	check(0)
}

func sumVisits(d Decision) int {
	n := 0
	for _, v := range d.Visits {
		n += v
	}
	return n
}

func TestVisitsAddUpAndVirtualLossUndone(t *testing.T) {
	for _, batch := range []int{1, 3, 8, 32} {
		for _, eval := range []Evaluator{UniformEvaluator{}, hashEvaluator{}} {
			t.Run(reflect.TypeOf(eval).Name()+"/batch="+itoa(batch), func(t *testing.T) {
				cfg := DefaultConfig()
				cfg.Simulations, cfg.BatchSize, cfg.DirichletEpsilon = 300, batch, 0.25
				p := newPUCT(t, eval, cfg, 1)
				g := testgames.RandomGame(t, uint64(batch), 12)
				d, err := p.Choose(g)
				if err != nil {
					t.Fatal(err)
				}
				if n := sumVisits(d); n != cfg.Simulations || d.Simulations != cfg.Simulations {
					t.Errorf("visits add up to %d, simulations %d: want %d", n, d.Simulations, cfg.Simulations)
				}
				if len(d.Visits) != len(g.LegalMoves(nil)) {
					t.Errorf("%d root actions, %d legal moves", len(d.Visits), len(g.LegalMoves(nil)))
				}
				checkTree(t, p.s)
			})
		}
	}
}

func itoa(n int) string { return string(rune('0'+n/10)) + string(rune('0'+n%10)) }

func TestBatchingGathersLeaves(t *testing.T) {
	ev := &countingEvaluator{inner: UniformEvaluator{}}
	cfg := DefaultConfig()
	cfg.Simulations, cfg.BatchSize = 400, 8
	if _, err := newPUCT(t, ev, cfg, 1).Choose(env.NewGame(env.DefaultRules())); err != nil {
		t.Fatal(err)
	}
	if ev.maxed != 8 || ev.calls > cfg.Simulations/4 {
		t.Errorf("%d calls, largest batch %d: want batches of up to 8, mostly full", ev.calls, ev.maxed)
	}
}

func TestTreeReuse(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Simulations = 200
	p := newPUCT(t, hashEvaluator{}, cfg, 1)
	g := env.NewGame(env.DefaultRules())
	d, err := p.Choose(g)
	if err != nil {
		t.Fatal(err)
	}
	// Play the most visited reply too, so that the new root has visits.
	if err := g.Play(d.Move); err != nil {
		t.Fatal(err)
	}
	if err := g.Play(d.PV[1]); err != nil {
		t.Fatal(err)
	}
	kept := p.s.nodes.At(p.s.walk(d.PV[:2])).N - 1
	d2, err := p.Choose(g)
	if err != nil {
		t.Fatal(err)
	}
	if n := sumVisits(d2); n != cfg.Simulations+int(kept) || kept == 0 {
		t.Errorf("visits %d: want %d new + %d kept", n, cfg.Simulations, kept)
	}
	checkTree(t, p.s)

	// The same search without reuse sees only its own simulations.
	cfg.ReuseTree = false
	fresh, err := newPUCT(t, hashEvaluator{}, cfg, 1).Choose(g)
	if err != nil {
		t.Fatal(err)
	}
	if n := sumVisits(fresh); n != cfg.Simulations {
		t.Errorf("without reuse: %d visits, want %d", n, cfg.Simulations)
	}
	// Another game (fewer moves) starts a new tree.
	d3, err := p.Choose(env.NewGame(env.DefaultRules()))
	if err != nil {
		t.Fatal(err)
	}
	if n := sumVisits(d3); n != cfg.Simulations {
		t.Errorf("new game: %d visits, want a fresh tree's %d", n, cfg.Simulations)
	}
}

func TestSearchIsReproducible(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Simulations, cfg.DirichletEpsilon, cfg.Temperature, cfg.TemperaturePlies = 150, 0.25, 1, 100
	a, b, c := playOpening(t, cfg, 3), playOpening(t, cfg, 3), playOpening(t, cfg, 4)
	if !reflect.DeepEqual(a, b) {
		t.Error("two searches with the same seed differ")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("searches with different seeds (noise, temperature) agree on every move")
	}
}

// playOpening plays the first 8 plies of a game with a seeded search on
// the hash evaluator and returns its decisions.
func playOpening(t *testing.T, cfg Config, seed uint64) []Decision {
	t.Helper()
	p := newPUCT(t, hashEvaluator{}, cfg, seed)
	g := env.NewGame(env.DefaultRules())
	var ds []Decision
	for range 8 {
		d, err := p.Choose(g)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
		if err := g.Play(d.Move); err != nil {
			t.Fatal(err)
		}
	}
	return ds
}

func TestPUCTUniformFindsWinInOne(t *testing.T) {
	for _, tc := range testgames.WinInOneFENs {
		t.Run(tc.Name, func(t *testing.T) {
			g := testgames.GameFromFEN(t, tc.FEN)
			pos := g.Position()
			wins := testgames.WinningMoves(pos, true)
			n := len(g.LegalMoves(nil))
			cfg := treeOnlyConfig()
			// Without an FPU reduction a uniform prior tries every move
			// once before any twice: the win shows after n simulations.
			cfg.Simulations, cfg.FPUReduction, cfg.BatchSize = 3*n, 0, 1
			p := newPUCT(t, UniformEvaluator{}, cfg, 1)
			d, err := p.Choose(g)
			if err != nil {
				t.Fatal(err)
			}
			best, bestN := env.Move{}, -1
			for _, ch := range p.s.rootChildren() {
				if int(ch.N) > bestN {
					best, bestN = ch.Move, int(ch.N)
				}
				if ch.Move == wins[0] && (ch.State != arena.Terminal || ch.Result != -1 || ch.W != float32(ch.N)) {
					t.Errorf("winning child: state %d, value %v, w %v, n %d: want terminal, -1 for the loser, Q = 1", ch.State, ch.Result, ch.W, ch.N)
				}
			}
			if !testgames.ContainsMove(wins, best) || !testgames.ContainsMove(wins, d.Move) {
				t.Errorf("most visited %v, played %v: want a win of %v", best, d.Move, wins)
			}
		})
	}
}

// TestPUCTUniformFindsWinInTwo relies on the search's exact results: each
// reply to the winning move leaves a decisive move, so once every reply has
// been tried the winning move is proven and played (PUCT by itself does not
// prefer a faster win to a slower one).
func TestPUCTUniformFindsWinInTwo(t *testing.T) {
	for i, pos := range testgames.WinInTwoPositions(t, 10) {
		t.Run(pos.FEN(), func(t *testing.T) {
			cfg := treeOnlyConfig()
			cfg.Simulations = 4000
			p := newPUCT(t, UniformEvaluator{}, cfg, uint64(i))
			d, err := p.Choose(env.NewGameFrom(pos, env.DefaultRules()))
			if err != nil {
				t.Fatal(err)
			}
			if !testgames.ForcesWin(pos, d.Move, true) {
				t.Fatalf("played %v (value %.2f), which does not force a win", d.Move, d.Value)
			}
			for _, ch := range p.s.rootChildren() {
				if ch.Move == d.Move && (ch.State != arena.Terminal || ch.Result != -1) {
					t.Errorf("winning move %v: state %d, result %d: want proven lost for the opponent", ch.Move, ch.State, ch.Result)
				}
			}
			checkTree(t, p.s)
		})
	}
}

// repetitionGame shuffles two lone pieces back and forth: after 7 plies
// Blue's f2-1-f1 would make the start position occur a third time.
func repetitionGame(t *testing.T, plies int) *env.Game {
	t.Helper()
	g := testgames.GameFromFEN(t, testgames.FEN(map[string]string{"a6": "r", "f1": "b"}, 'r'))
	cycle := []string{"a6-1-a5", "f1-1-f2", "a5-1-a6", "f2-1-f1"}
	for i := range plies {
		m, err := env.ParseMove(cycle[i%4])
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func childByMove(t *testing.T, s *search, text string) arena.Node {
	t.Helper()
	m, err := env.ParseMove(text)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range s.rootChildren() {
		if ch.Move == m {
			return ch
		}
	}
	t.Fatalf("no root child %v", m)
	return arena.Node{}
}

func TestTerminalValuesAreExact(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Simulations, cfg.FPUReduction = 400, 0
	t.Run("third repetition is a draw", func(t *testing.T) {
		p := newPUCT(t, hashEvaluator{}, cfg, 1)
		if _, err := p.Choose(repetitionGame(t, 7)); err != nil {
			t.Fatal(err)
		}
		ch := childByMove(t, p.s, "f2-1-f1")
		if ch.State != arena.Terminal || ch.Result != 0 || ch.W != 0 || ch.N == 0 {
			t.Errorf("state %d, value %v, w %v, n %d: want a visited terminal draw, exactly 0", ch.State, ch.Result, ch.W, ch.N)
		}
		checkTree(t, p.s)
	})
	t.Run("second occurrence goes on", func(t *testing.T) {
		p := newPUCT(t, hashEvaluator{}, cfg, 1)
		if _, err := p.Choose(repetitionGame(t, 3)); err != nil {
			t.Fatal(err)
		}
		if ch := childByMove(t, p.s, "f2-1-f1"); ch.State == arena.Terminal {
			t.Error("a position seen twice is terminal")
		}
	})
	t.Run("repetition inside the tree", func(t *testing.T) {
		// After ply 4 the start position stands for the second time; the
		// cycle's next four moves reach it a third time, four plies down
		// the tree. An evaluator that favours those moves leads there.
		line := mustMoves(t, "a6-1-a5", "f1-1-f2", "a5-1-a6", "f2-1-f1")
		favour := favourEvaluator{}
		for _, m := range line {
			favour[mustAction(t, m)] = true
		}
		p := newPUCT(t, favour, cfg, 1)
		if _, err := p.Choose(repetitionGame(t, 4)); err != nil {
			t.Fatal(err)
		}
		for depth := 1; depth <= 4; depth++ {
			i := p.s.walk(line[:depth])
			if i < 0 || p.s.nodes.At(i).N == 0 {
				t.Fatalf("the search did not reach ply %d of the line", depth)
			}
			nd := *p.s.nodes.At(i)
			if terminalWant := depth == 4; (nd.State == arena.Terminal) != terminalWant || terminalWant && (nd.Result != 0 || nd.W != 0) {
				t.Errorf("depth %d: state %d, value %v, w %v: want terminal draw only at depth 4", depth, nd.State, nd.Result, nd.W)
			}
		}
	})
	t.Run("move limit", func(t *testing.T) {
		pos, err := env.ParseFEN(testgames.FEN(map[string]string{"a6": "rr", "c4": "r", "f1": "bb", "d1": "b"}, 'r'))
		if err != nil {
			t.Fatal(err)
		}
		pos.SetPly(9)
		rules := env.DefaultRules()
		rules.MaxPlies = 10
		p := newPUCT(t, hashEvaluator{}, cfg, 1)
		d, err := p.Choose(env.NewGameFrom(pos, rules))
		if err != nil {
			t.Fatal(err)
		}
		root := *p.s.nodes.At(0)
		for _, ch := range p.s.rootChildren() {
			if ch.N > 0 && (ch.State != arena.Terminal || ch.Result != 0 || ch.W != 0) {
				t.Fatalf("child %v: state %d, value %v, w %v: want a terminal draw", ch.Move, ch.State, ch.Result, ch.W)
			}
		}
		// The root value is its own evaluation averaged with exact zeros.
		if want := -root.W / float32(root.N); d.Value != float64(want) || root.W*float32(root.N) == 0 && d.Value != 0 {
			t.Errorf("root value %v, want %v", d.Value, want)
		}
	})
}

func mustMoves(t *testing.T, texts ...string) []env.Move {
	t.Helper()
	var ms []env.Move
	for _, s := range texts {
		m, err := env.ParseMove(s)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	return ms
}

func TestRootValueSign(t *testing.T) {
	// Red's lone piece must move to a2, b2 or b1, and Blue captures it on
	// each: every child is a decisive win for Blue, so the root's value is
	// its own evaluation (+0.5 from the constant evaluator) averaged with
	// exact losses.
	g := testgames.GameFromFEN(t, testgames.FEN(map[string]string{"a1": "r", "a3": "b", "c3": "b", "c1": "b"}, 'r'))
	cfg := treeOnlyConfig()
	cfg.Simulations = 100
	p := newPUCT(t, constEvaluator(0.5), cfg, 1)
	d, err := p.Choose(g)
	if err != nil {
		t.Fatal(err)
	}
	if want := (0.5 - 100) / 101; math.Abs(d.Value-want) > 1e-5 {
		t.Errorf("root value %v, want %v", d.Value, want)
	}
	for _, ch := range p.s.rootChildren() {
		if ch.State != arena.Terminal || ch.Result != 1 {
			t.Errorf("child %v: state %d, value %v: want a decisive win for Blue", ch.Move, ch.State, ch.Result)
		}
	}
	// In a won position the value is positive.
	d, err = newPUCT(t, constEvaluator(0), cfg, 1).Choose(testgames.GameFromFEN(t, testgames.WinInOneFENs[0].FEN))
	if err != nil {
		t.Fatal(err)
	}
	if d.Value <= 0 {
		t.Errorf("won position: root value %v", d.Value)
	}
}

// favourEvaluator gives the actions in the set a hundred times the prior
// of the others, and values 0.
type favourEvaluator map[env.Action]bool

func (f favourEvaluator) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	for i := range values {
		for j, a := range legal[i] {
			priors[i][j] = 1
			if f[a] {
				priors[i][j] = 100
			}
		}
		values[i] = 0
	}
	return nil
}

// constEvaluator gives uniform priors and the same value everywhere.
type constEvaluator float32

func (c constEvaluator) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	for i := range values {
		fillUniform(priors[i])
		values[i] = float32(c)
	}
	return nil
}

// failingEvaluator fails the first n calls and then evaluates uniformly.
type failingEvaluator struct{ n int }

var errTest = errors.New("test failure")

func (f *failingEvaluator) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	if f.n > 0 {
		f.n--
		return errTest
	}
	return UniformEvaluator{}.Evaluate(obs, legal, priors, values)
}

// badEvaluator returns priors or values out of range.
type badEvaluator struct{ prior, value float32 }

func (b badEvaluator) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	for i := range values {
		for j := range priors[i] {
			priors[i][j] = b.prior
		}
		values[i] = b.value
	}
	return nil
}

func TestEvaluatorErrors(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Simulations = 50
	g := env.NewGame(env.DefaultRules())
	f := &failingEvaluator{n: 3}
	p := newPUCT(t, f, cfg, 1)
	// The first fails on the root, the next two in the middle of a search.
	for i := range 3 {
		if _, err := p.Choose(g); !errors.Is(err, errTest) {
			t.Fatalf("call %d: error %v, want the evaluator's", i, err)
		}
		if i == 0 {
			f.n = 0
			if _, err := p.Choose(g); err != nil {
				t.Fatal(err)
			}
			f.n = 2
		}
	}
	d, err := p.Choose(g)
	if err != nil {
		t.Fatalf("after the failures: %v", err)
	}
	if n := sumVisits(d); n != cfg.Simulations {
		t.Errorf("after a failed search: %d visits, want a fresh tree's %d", n, cfg.Simulations)
	}
	checkTree(t, p.s)
	for _, bad := range []badEvaluator{{prior: float32(math.NaN())}, {prior: -1}, {prior: 0}, {prior: 1, value: 2}, {prior: 1, value: float32(math.NaN())}} {
		if _, err := newPUCT(t, bad, cfg, 1).Choose(g); err == nil {
			t.Errorf("no error for priors %v, value %v", bad.prior, bad.value)
		}
	}
}

// TestConcurrentSearches runs many self-play games, each in its own
// goroutine with its own player, on shared evaluators: one that locks and
// one that batches across the goroutines. Run with -race.
func TestConcurrentSearches(t *testing.T) {
	locked := &countingEvaluator{inner: hashEvaluator{}}
	batcher, err := newBatcher(hashEvaluator{}, 64, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer batcher.Close()
	for name, eval := range map[string]Evaluator{"locked": locked, "batched": batcher} {
		t.Run(name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Simulations, cfg.BatchSize, cfg.DirichletEpsilon, cfg.Temperature, cfg.TemperaturePlies = 64, 4, 0.25, 1, 4
			var wg sync.WaitGroup
			var moves atomic.Int64
			errs := make(chan error, 8)
			for game := range 8 {
				wg.Go(func() {
					p, err := NewPUCTPlayer(eval, cfg, uint64(game))
					if err != nil {
						errs <- err
						return
					}
					g := env.NewGame(env.DefaultRules())
					for range 6 {
						d, err := p.Choose(g)
						if err == nil {
							err = g.Play(d.Move)
						}
						if err != nil {
							errs <- err
							return
						}
						moves.Add(1)
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if moves.Load() != 8*6 {
				t.Errorf("%d moves played, want 48", moves.Load())
			}
		})
	}
}

func TestTemperature(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Simulations, cfg.Temperature, cfg.TemperaturePlies = 200, 1, 1
	g := env.NewGame(env.DefaultRules())
	seen := map[env.Move]bool{}
	for seed := range uint64(20) {
		p := newPUCT(t, hashEvaluator{}, cfg, seed)
		d, err := p.Choose(g)
		if err != nil {
			t.Fatal(err)
		}
		seen[d.Move] = true
		if d.Visits[mustAction(t, d.Move)] == 0 {
			t.Errorf("seed %d: played %v, which has no visits", seed, d.Move)
		}
	}
	if len(seen) < 3 {
		t.Errorf("temperature 1: only %d different moves in 20 seeds", len(seen))
	}
	// From ply 1 on the final temperature 0 plays the most visited move.
	if err := g.Play(mustMoves(t, "a6-1-a5")[0]); err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(5) {
		p := newPUCT(t, hashEvaluator{}, cfg, seed)
		d, err := p.Choose(g)
		if err != nil {
			t.Fatal(err)
		}
		best := 0
		for _, n := range d.Visits {
			best = max(best, n)
		}
		if d.Visits[mustAction(t, d.Move)] != best {
			t.Errorf("seed %d: played a move with %d visits, the most is %d", seed, d.Visits[mustAction(t, d.Move)], best)
		}
	}
}

// TestLateTemperature checks the schedule of the move noise: the
// temperature of the opening before TemperaturePlies, the final one until
// LateTemperaturePly, and the opening's again from there on.
func TestLateTemperature(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Simulations, cfg.Temperature, cfg.TemperaturePlies, cfg.LateTemperaturePly = 200, 1, 1, 3
	cases := []struct {
		name   string
		moves  []string
		varied bool
	}{
		{"opening", nil, true},
		{"between", []string{"a6-1-a5"}, false},
		{"just before", []string{"a6-1-a5", "a1-1-a2"}, false},
		{"from the late ply", []string{"a6-1-a5", "a1-1-a2", "b6-1-b5"}, true},
		{"later still", []string{"a6-1-a5", "a1-1-a2", "b6-1-b5", "b1-1-b2"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := env.NewGame(env.DefaultRules())
			for _, m := range mustMoves(t, tc.moves...) {
				if err := g.Play(m); err != nil {
					t.Fatal(err)
				}
			}
			seen := map[env.Move]bool{}
			for seed := range uint64(20) {
				d, err := newPUCT(t, hashEvaluator{}, cfg, seed).Choose(g)
				if err != nil {
					t.Fatal(err)
				}
				seen[d.Move] = true
			}
			if varied := len(seen) >= 3; varied != tc.varied {
				t.Errorf("%d different moves in 20 seeds: want varied %v", len(seen), tc.varied)
			}
		})
	}
}

func mustAction(t *testing.T, m env.Move) env.Action {
	t.Helper()
	a, err := env.ActionOf(m)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		key    string
		change func(*Config)
	}{
		{"simulations", func(c *Config) { c.Simulations = 0 }},
		{"c_puct", func(c *Config) { c.CPuct = 0 }},
		{"c_puct_base", func(c *Config) { c.CPuctBase = -1 }},
		{"fpu_reduction", func(c *Config) { c.FPUReduction = math.NaN() }},
		{"dirichlet_alpha", func(c *Config) { c.DirichletAlpha = 0 }},
		{"dirichlet_epsilon", func(c *Config) { c.DirichletEpsilon = 1.5 }},
		{"temperature", func(c *Config) { c.Temperature = -1 }},
		{"temperature_plies", func(c *Config) { c.TemperaturePlies = -1 }},
		{"final_temperature", func(c *Config) { c.FinalTemperature = math.Inf(1) }},
		{"late_temperature_ply", func(c *Config) { c.LateTemperaturePly = -1 }},
		{"batch_size", func(c *Config) { c.BatchSize = 0 }},
		{"virtual_loss", func(c *Config) { c.VirtualLoss = -1 }},
		{"time", func(c *Config) { c.Time = -time.Second }},
		{"contempt", func(c *Config) { c.Contempt = 1.5 }},
	}
	for _, tc := range cases {
		t.Run(tc.key, func(t *testing.T) {
			c := DefaultConfig()
			tc.change(&c)
			err := c.Validate()
			if err == nil || !contains(err.Error(), tc.key+" is") {
				t.Errorf("error %v: want one naming %s", err, tc.key)
			}
			if _, err := NewPUCTPlayer(UniformEvaluator{}, c, 1); err == nil {
				t.Error("NewPUCTPlayer accepted the config")
			}
		})
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub))
}

// Every field of Config is one setting, under its yaml key, and reads back
// what Set wrote.
func TestSettingsCoverConfig(t *testing.T) {
	typ := reflect.TypeFor[Config]()
	list := Settings()
	if len(list) != typ.NumField() {
		t.Fatalf("%d settings for %d fields", len(list), typ.NumField())
	}
	seen := map[string]bool{}
	for i, s := range list {
		if want := typ.Field(i).Tag.Get("yaml"); s.Key != want {
			t.Errorf("setting %d is %q, field %s has yaml key %q", i, s.Key, typ.Field(i).Name, want)
		}
		for _, name := range append([]string{s.Key}, s.Aliases...) {
			if seen[name] {
				t.Errorf("%q names two settings", name)
			}
			seen[name] = true
			if key, ok := CanonicalKey(name); !ok || key != s.Key {
				t.Errorf("CanonicalKey(%q) = %q, %v", name, key, ok)
			}
		}
		c := DefaultConfig()
		if err := c.Set(s.Key, c.Get(s.Key)); err != nil {
			t.Errorf("%s: set to its own value: %v", s.Key, err)
		}
	}
	var c Config
	if err := c.Set("nosuch", "1"); err == nil {
		t.Error("Set of an unknown key succeeded")
	}
}

func TestRootMoves(t *testing.T) {
	cfg := treeOnlyConfig()
	cfg.Simulations = 40
	p := newPUCT(t, hashEvaluator{}, cfg, 1)
	if got := p.RootMoves(); got != nil {
		t.Fatalf("before a search: %v, want nil", got)
	}
	g := env.NewGame(env.DefaultRules())
	d, err := p.Choose(g)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, sims int) {
		t.Run(name, func(t *testing.T) {
			moves := p.RootMoves()
			if want := len(g.LegalMoves(nil)); len(moves) != want {
				t.Fatalf("%d root moves, want %d", len(moves), want)
			}
			var visits int
			var prior float64
			for i, m := range moves {
				visits += m.Visits
				prior += float64(m.Prior)
				if i > 0 && m.Visits > moves[i-1].Visits {
					t.Errorf("move %d (%v) has %d visits, more than the one before", i, m.Move, m.Visits)
				}
				if m.Visits == 0 != math.IsNaN(m.Q) || (m.Visits > 0 && (m.Q < -1 || m.Q > 1)) {
					t.Errorf("%v: %d visits, Q %v", m.Move, m.Visits, m.Q)
				}
				if len(m.PV) == 0 || m.PV[0] != m.Move {
					t.Errorf("%v: PV %v does not start with the move", m.Move, m.PV)
				}
			}
			if visits != sims {
				t.Errorf("visits add up to %d, want %d", visits, sims)
			}
			if math.Abs(prior-1) > 1e-4 {
				t.Errorf("priors add up to %v, want 1", prior)
			}
		})
	}
	check("one search", cfg.Simulations)
	if top := p.RootMoves()[0]; top.Move != d.Move || !reflect.DeepEqual(top.PV, d.PV) {
		t.Errorf("top move %v (PV %v), decision %v (PV %v)", top.Move, top.PV, d.Move, d.PV)
	}
	if _, err := p.Choose(g); err != nil {
		t.Fatal(err)
	}
	check("grown by a second search", 2*cfg.Simulations)
	p.Reset()
	if got := p.RootMoves(); got != nil {
		t.Errorf("after Reset: %d moves, want nil", len(got))
	}
}

func TestChooseSimulations(t *testing.T) {
	for _, gumbel := range []bool{false, true} {
		t.Run(map[bool]string{false: "puct", true: "gumbel"}[gumbel], func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Simulations, cfg.Gumbel, cfg.ReuseTree = 64, gumbel, false
			cfg.DirichletEpsilon = 0
			p := newPUCT(t, hashEvaluator{}, cfg, 1)
			g := env.NewGame(env.DefaultRules())
			for _, sims := range []int{8, 64, 3} {
				d, err := p.ChooseSimulations(g, sims)
				if err != nil {
					t.Fatal(err)
				}
				if d.Simulations != sims || sumVisits(d) != sims {
					t.Errorf("%d simulations asked: %d run, %d visits", sims, d.Simulations, sumVisits(d))
				}
			}
			if d, err := p.Choose(g); err != nil || d.Simulations != cfg.Simulations {
				t.Errorf("Choose after ChooseSimulations: %d simulations (%v), want the config's %d", d.Simulations, err, cfg.Simulations)
			}
			if p.cfg.Simulations != cfg.Simulations {
				t.Errorf("config changed to %d simulations", p.cfg.Simulations)
			}
			if _, err := p.ChooseSimulations(g, 0); err == nil {
				t.Error("0 simulations accepted")
			}
		})
	}
}
