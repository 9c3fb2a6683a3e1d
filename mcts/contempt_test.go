package mcts

import (
	"fmt"
	"math"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/internal/arena"
	"github.com/deathstacks/deathstacks/mcts/internal/testgames"
)

// aheadRepetitionGame is a game in which Red, far ahead in material, can
// repeat the position a third time with a5-1-a6 (the cycle began with
// Blue's f1-1-f2), and has other moves that neither win nor draw at once.
func aheadRepetitionGame(t *testing.T) *env.Game { return aheadCycle(t, 7) }

// aheadCycle is the game of aheadRepetitionGame after plies of the cycle.
func aheadCycle(t *testing.T, plies int) *env.Game {
	t.Helper()
	return cycle(t, map[string]string{"a6": "r", "c3": "rrrr", "d3": "rrr", "f1": "b", "f6": "b"}, plies)
}

// cycle is the game from stacks (Blue to move, with single pieces on a6
// and f1) after plies of the cycle f1-1-f2, a6-1-a5, f2-1-f1, a5-1-a6.
func cycle(t *testing.T, stacks map[string]string, plies int) *env.Game {
	t.Helper()
	g := testgames.GameFromFEN(t, testgames.FEN(stacks, 'b'))
	for i := range plies {
		m := mustMoves(t, []string{"f1-1-f2", "a6-1-a5", "f2-1-f1", "a5-1-a6"}[i%4])[0]
		if err := g.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func TestContemptScoresDraws(t *testing.T) {
	g := aheadRepetitionGame(t)
	pos := g.Position()
	lead := pos.Material(pos.SideToMove())
	if lead <= 0 {
		t.Fatalf("Red's lead %d: want a lead", lead)
	}
	for _, k := range []float64{0, 0.3, 1} {
		t.Run("contempt "+itoa(int(k*10)), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Simulations, cfg.FPUReduction, cfg.Contempt = 400, 0, k
			p := newPUCT(t, hashEvaluator{}, cfg, 1)
			if _, err := p.Choose(g); err != nil {
				t.Fatal(err)
			}
			ch := childByMove(t, p.s, "a5-1-a6")
			// The draw is worth -k*tanh(lead/60) to Red, who moved into it
			// (known without a visit: a search may never visit it).
			want := -k * math.Tanh(float64(lead)/60)
			if got := -p.s.resultValue(ch.Result, 2); ch.State != arena.Terminal || ch.Result != 0 || math.Abs(float64(got)-want) > 1e-6 ||
				ch.N > 0 && math.Abs(float64(ch.W)/float64(ch.N)-want) > 1e-6 {
				t.Errorf("state %d, result %d, Q %v over %d visits: want a terminal draw worth %v", ch.State, ch.Result, ch.W/float32(ch.N), ch.N, want)
			}
			checkTree(t, p.s)
		})
	}
}

func TestContemptAvoidsRepetition(t *testing.T) {
	// The evaluator knows nothing: every position is worth 0, every move
	// as likely. With draws worth 0 the repetition is as good as any move
	// and gets its share of the visits; with contempt, the side ahead
	// shuns it.
	g := aheadRepetitionGame(t)
	repeat := mustAction(t, mustMoves(t, "a5-1-a6")[0])
	for _, tc := range []struct {
		contempt float64
		shunned  bool
	}{{0, false}, {0.5, true}} {
		cfg := treeOnlyConfig()
		cfg.Simulations, cfg.FPUReduction, cfg.Contempt = 400, 0, tc.contempt
		d, err := newPUCT(t, UniformEvaluator{}, cfg, 1).Choose(g)
		if err != nil {
			t.Fatal(err)
		}
		mean := float64(d.Simulations-d.Visits[repeat]) / float64(len(d.Visits)-1)
		shunned := float64(d.Visits[repeat]) < mean/2
		if shunned != tc.shunned || tc.shunned && d.Move == mustMoves(t, "a5-1-a6")[0] {
			t.Errorf("contempt %v: the repetition got %d visits, the other moves %.1f on average, and %v was played: want it shunned: %v",
				tc.contempt, d.Visits[repeat], mean, d.Move, tc.shunned)
		}
	}
}

func TestDrawValue(t *testing.T) {
	cases := []struct {
		k, cost float64
		lead    int
		want    float64
	}{
		{0, 0, 100, 0},
		{0.5, 0, 0, 0},
		{0.5, 0, 60, -0.5 * math.Tanh(1)},
		{0.5, 0, -60, 0}, // behind: a draw gains nothing
		{0.5, 0, -1, 0},
		{1, 0, 1000, -1},
		{0, 0.1, 0, -0.1},
		{0, 0.1, -1000, -0.1},
		{0.5, 0.1, 60, -0.1 - 0.5*math.Tanh(1)},
		{0.5, 0.1, -60, -0.1},
		{1, 0.5, 1000, -1},
		{1, 1, -1000, -1},
	}
	for _, tc := range cases {
		if got := drawValue(tc.k, tc.cost, tc.lead); math.Abs(float64(got)-tc.want) > 1e-6 {
			t.Errorf("drawValue(%v, %v, %d) = %v, want %v", tc.k, tc.cost, tc.lead, got, tc.want)
		}
	}
}

func TestDrawCostAvoidsLevelRepetition(t *testing.T) {
	// Material is level, so contempt alone scores a repetition 0, as good
	// as any move to a uniform evaluator; a draw cost makes the searching
	// side (Red after 7 plies of the cycle) shun it.
	level := map[string]string{"a6": "r", "c3": "rr", "d4": "bb", "f1": "b"}
	for _, tc := range []struct {
		name  string
		plies int
		move  string
		cost  float64
		shun  bool
	}{
		{"repeat, no cost", 7, "a5-1-a6", 0, false},
		{"repeat, cost", 7, "a5-1-a6", 0.2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := cycle(t, level, tc.plies)
			if pos := g.Position(); pos.Material(pos.SideToMove()) != 0 {
				t.Fatalf("lead %d: want level material", pos.Material(pos.SideToMove()))
			}
			m := mustMoves(t, tc.move)[0]
			cfg := DefaultConfig()
			cfg.Simulations, cfg.FPUReduction, cfg.Contempt, cfg.DrawCost = 400, 0, 0.5, tc.cost
			p := newPUCT(t, UniformEvaluator{}, cfg, 1)
			d, err := p.Choose(g)
			if err != nil {
				t.Fatal(err)
			}
			// Every other move is worth 0 to the uniform evaluator; this
			// one, with a cost, at most what the draw costs.
			ch := childByMove(t, p.s, tc.move)
			q := float64(ch.W) / float64(ch.N)
			if shunned := q < -tc.cost/4; shunned != tc.shun || tc.shun && d.Move == m || !tc.shun && math.Abs(q) > 1e-6 {
				t.Errorf("%v is worth %.3f over %d visits and %v was played: want it shunned: %v", m, q, ch.N, d.Move, tc.shun)
			}
		})
	}
}

func TestContemptScoresCyclesAsDraws(t *testing.T) {
	// The evaluator leads the search round the cycle of repetitionGame: four
	// plies down, the root's position comes back, for the second time. With
	// contempt that node is the draw the cycle leads to; without, the
	// search goes on there, as the game would.
	line := mustMoves(t, "a6-1-a5", "f1-1-f2", "a5-1-a6", "f2-1-f1")
	favour := favourEvaluator{}
	for _, m := range line {
		favour[mustAction(t, m)] = true
	}
	for _, k := range []float64{0, 0.5} {
		cfg := DefaultConfig()
		cfg.Simulations, cfg.FPUReduction, cfg.Contempt = 400, 0, k
		p := newPUCT(t, favour, cfg, 1)
		if _, err := p.Choose(repetitionGame(t, 0)); err != nil {
			t.Fatal(err)
		}
		i := p.s.walk(line)
		if i < 0 || p.s.nodes.At(i).N == 0 {
			t.Fatalf("contempt %v: the search did not come round the cycle", k)
		}
		if nd := *p.s.nodes.At(i); (nd.State == arena.Terminal && nd.Result == 0) != (k > 0) {
			t.Errorf("contempt %v: the cycle's end has state %d, result %d: want a terminal draw %v", k, nd.State, nd.Result, k > 0)
		}
	}
}

func TestDrawingChildIsTerminalAtOnce(t *testing.T) {
	// Red to move after 3 plies of the cycle can only repeat the start a
	// second time; after 7, a third time: a draw by the rules, known when
	// the root's children are created, contempt or not.
	for _, tc := range []struct {
		plies    int
		contempt float64
		want     bool
	}{{3, 0, false}, {3, 0.5, false}, {7, 0, true}, {7, 0.5, true}} {
		t.Run(fmt.Sprintf("plies %d contempt %v", tc.plies, tc.contempt), func(t *testing.T) {
			g := aheadCycle(t, tc.plies)
			cfg := DefaultConfig()
			cfg.Contempt = tc.contempt
			p := newPUCT(t, UniformEvaluator{}, cfg, 1)
			if err := p.s.prepare(g); err != nil {
				t.Fatal(err)
			}
			if err := p.s.simulate(1, nil); err != nil { // the root's own evaluation
				t.Fatal(err)
			}
			ch := childByMove(t, p.s, "a5-1-a6")
			if got := ch.State == arena.Terminal && ch.Result == 0; got != tc.want || ch.N != 0 {
				t.Errorf("the repetition has state %d, result %d, %d visits: want a terminal draw %v before any visit", ch.State, ch.Result, ch.N, tc.want)
			}
		})
	}
}

// priorEvaluator weighs the prior of the actions in it by their weight
// (the others by 1) and gives every position the value 0.
type priorEvaluator map[env.Action]float32

func (w priorEvaluator) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	for i := range values {
		for j, a := range legal[i] {
			priors[i][j] = 1
			if x, ok := w[a]; ok {
				priors[i][j] = x
			}
		}
		values[i] = 0
	}
	return nil
}

func TestDrawingReplyWithATinyPriorIsSeen(t *testing.T) {
	// Blue, far ahead, is to move at ply 6 of the cycle: its f2-1-f1,
	// which the evaluator favours, lets Red repeat the start a third time
	// with a5-1-a6, a move the evaluator all but rules out. The reply is
	// a known draw, so Red's node is worth about Red's draw and Blue shuns
	// f2-1-f1; every other position is worth 0 to the evaluator.
	g := cycle(t, map[string]string{"a6": "r", "c3": "bbbb", "d3": "bbb", "f1": "b", "f6": "r"}, 6)
	pos := g.Position()
	if pos.SideToMove() != env.Blue || pos.Material(env.Blue) <= 0 {
		t.Fatalf("%v to move with a lead of %d: want Blue ahead", pos.SideToMove(), pos.Material(env.Blue))
	}
	eval := priorEvaluator{
		mustAction(t, mustMoves(t, "f2-1-f1")[0]): 5,
		mustAction(t, mustMoves(t, "a5-1-a6")[0]): 1e-4,
	}
	cfg := treeOnlyConfig()
	cfg.Simulations, cfg.Contempt, cfg.DirichletEpsilon = 800, 0.5, 0
	draw := drawValue(cfg.Contempt, 0, pos.Material(env.Blue))
	for _, gumbel := range []bool{false, true} {
		t.Run(fmt.Sprintf("gumbel %v", gumbel), func(t *testing.T) {
			cfg.Gumbel = gumbel
			p := newPUCT(t, eval, cfg, 1)
			d, err := p.Choose(g)
			if err != nil {
				t.Fatal(err)
			}
			ch := childByMove(t, p.s, "f2-1-f1")
			// Red's node still tries other replies now and then (each worth
			// 0), but most of its visits go to the draw.
			if q := float64(ch.W) / float64(ch.N); ch.N == 0 || q > float64(draw)/2 {
				t.Errorf("%v is worth %.3f over %d visits: want near Blue's draw, %.3f", ch.Move, q, ch.N, draw)
			}
			if d.Move == ch.Move {
				t.Errorf("played %v, which lets Red draw", ch.Move)
			}
			checkTree(t, p.s)
		})
	}
}

func TestLeafThatCanDrawIsWorthTheDraw(t *testing.T) {
	// The evaluator calls every position lost for its side to move; Red,
	// at ply 7 of the cycle, can draw, so with contempt its position is
	// worth Red's draw (and without, what the evaluator says).
	g := aheadRepetitionGame(t)
	pos := g.Position()
	for _, tc := range []struct{ k, cost float64 }{{0, 0}, {0.5, 0}, {0, 0.2}, {0.5, 0.2}} {
		k := tc.k
		cfg := treeOnlyConfig()
		cfg.Contempt, cfg.DrawCost = k, tc.cost
		p := newPUCT(t, constEvaluator(-0.9), cfg, 1)
		if err := p.s.prepare(g); err != nil {
			t.Fatal(err)
		}
		if err := p.s.simulate(1, nil); err != nil { // the root's own evaluation
			t.Fatal(err)
		}
		want := float32(-0.9)
		if k > 0 || tc.cost > 0 {
			want = drawValue(k, tc.cost, pos.Material(pos.SideToMove()))
		}
		if root := *p.s.nodes.At(0); root.N != 1 || math.Abs(float64(-root.W-want)) > 1e-6 {
			t.Errorf("contempt %v, draw cost %v: the root is worth %v over %d visits, want %v", k, tc.cost, -root.W, root.N, want)
		}
	}
}
