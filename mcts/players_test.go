package mcts

import (
	"slices"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/env"
)

// winInOneFENs are positions with a win in one move.
var winInOneFENs = []struct{ name, fen string }{
	{"adjacent", fenOf(map[string]string{"c4": "r", "a6": "rr", "c3": "b"}, 'r')},
	{"blue three-piece diagonal", fenOf(map[string]string{"a1": "bbb", "f1": "bb", "d4": "rr"}, 'b')},
	{"too-tall stack must do it", fenOf(map[string]string{"a1": "rrrrr", "a5": "r", "a6": "b"}, 'r')},
	{"reflected move", fenOf(map[string]string{"d5": "rrrr", "d3": "bb", "f6": "rb"}, 'r')},
	{"capture a mixed stack", fenOf(map[string]string{"b2": "rb", "e5": "brrb", "e2": "bb", "a6": "br"}, 'b')},
}

// testPlayers builds one player of every kind that should find a win in
// one move, with small budgets.
func testPlayers(t *testing.T) map[string]Player {
	t.Helper()
	players := map[string]Player{
		"greedy": NewGreedyPlayer(1),
	}
	for _, spec := range []string{"alphabeta:depth=1", "alphabeta:depth=3", "alphabeta:time=50ms", "mcts:sims=300"} {
		p, err := NewPlayer(mustSpec(t, spec), 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		players[spec] = p
	}
	cfg := DefaultConfig()
	cfg.Simulations = 100
	p, err := NewPUCTPlayer(UniformEvaluator{}, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	players["puct-uniform"] = p
	return players
}

func mustSpec(t testing.TB, text string) Spec {
	t.Helper()
	s, err := ParseSpec(text)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPlayersTakeWinInOne(t *testing.T) {
	for _, tc := range winInOneFENs {
		g := gameFromFEN(t, tc.fen)
		pos := g.Position()
		wins := winningMoves(pos, true)
		if len(wins) == 0 {
			t.Fatalf("%s: test position has no win in one", tc.name)
		}
		if len(wins) == len(g.LegalMoves(nil)) {
			t.Fatalf("%s: every move wins: no test", tc.name)
		}
		for name, p := range testPlayers(t) {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				d, err := p.Choose(g)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(wins, d.Move) {
					t.Errorf("played %v, want one of %v", d.Move, wins)
				}
				if len(d.PV) == 0 || d.PV[0] != d.Move {
					t.Errorf("PV %v does not start with the move %v", d.PV, d.Move)
				}
			})
		}
	}
}

func TestForcedWinInTwo(t *testing.T) {
	positions := winInTwoPositions(t, 10)
	specs := []string{"alphabeta:depth=3", "alphabeta:depth=5", "mcts:sims=2000"}
	for i, pos := range positions {
		g := env.NewGameFrom(pos, env.DefaultRules())
		for _, spec := range specs {
			t.Run(pos.FEN()+"/"+spec, func(t *testing.T) {
				p, err := NewPlayer(mustSpec(t, spec), uint64(i), nil)
				if err != nil {
					t.Fatal(err)
				}
				d, err := p.Choose(g)
				if err != nil {
					t.Fatal(err)
				}
				if !forcesWin(pos, d.Move, true) {
					t.Errorf("played %v, which does not force a win in two (value %.2f, PV %v)", d.Move, d.Value, d.PV)
				}
			})
		}
	}
}

func TestAlphaBetaScoresWinsByDistance(t *testing.T) {
	pos := winInTwoPositions(t, 1)[0]
	p, err := NewAlphaBetaPlayer(AlphaBetaConfig{Depth: 5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.Choose(env.NewGameFrom(pos, env.DefaultRules()))
	if err != nil {
		t.Fatal(err)
	}
	if d.Score != WinScore-3 || d.Depth != 3 || d.Value != 1 {
		t.Errorf("score %d at depth %d, value %v: want %d at depth 3 (a win at ply 3 stops the deepening), value 1", d.Score, d.Depth, d.Value, WinScore-3)
	}
	if len(d.PV) != 3 {
		t.Errorf("PV %v: want the 3 plies to the win", d.PV)
	}
}

func TestAlphaBetaTimeLimit(t *testing.T) {
	p, err := NewAlphaBetaPlayer(AlphaBetaConfig{Time: 30 * time.Millisecond}, 1)
	if err != nil {
		t.Fatal(err)
	}
	g := randomGame(t, 3, 20)
	start := time.Now()
	d, err := p.Choose(g)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("a 30ms search took %v", took)
	}
	pos := g.Position()
	if d.Depth < 1 || !pos.IsLegal(d.Move, true) {
		t.Errorf("depth %d, move %v: want a legal move of a completed iteration", d.Depth, d.Move)
	}
}

// TestPlayersPlayLegalMoves lets every kind of player choose moves in
// random positions from many games.
func TestPlayersPlayLegalMoves(t *testing.T) {
	specs := []string{"random", "greedy", "alphabeta:depth=2", "mcts:sims=50,depth=5"}
	for _, spec := range specs {
		t.Run(spec, func(t *testing.T) {
			p, err := NewPlayer(mustSpec(t, spec), 5, nil)
			if err != nil {
				t.Fatal(err)
			}
			for seed := range uint64(12) {
				g := randomGame(t, seed, int(seed)*9)
				d, err := p.Choose(g)
				if err != nil {
					t.Fatal(err)
				}
				pos := g.Position()
				if err := pos.CheckMove(d.Move, true); err != nil {
					t.Errorf("game %d: %v", seed, err)
				}
			}
		})
	}
}

func TestPlayersRefuseFinishedGame(t *testing.T) {
	g := gameFromFEN(t, fenOf(map[string]string{"a1": "r"}, 'b'))
	for name, p := range testPlayers(t) {
		if _, err := p.Choose(g); err == nil {
			t.Errorf("%s: no error for a finished game", name)
		}
	}
	if _, err := NewRandomPlayer(1).Choose(g); err == nil {
		t.Error("random: no error for a finished game")
	}
}

func TestGreedyMaximisesHeuristic(t *testing.T) {
	for seed := range uint64(10) {
		g := randomGame(t, seed, 15)
		d, err := NewGreedyPlayer(seed).Choose(g)
		if err != nil {
			t.Fatal(err)
		}
		pos := g.Position()
		best := -WinScore - 1
		for _, m := range g.LegalMoves(nil) {
			child := pos
			child.Apply(m)
			best = max(best, Heuristic(&child, pos.SideToMove()))
		}
		if d.Score != best {
			t.Errorf("game %d: greedy scored %d, best is %d", seed, d.Score, best)
		}
	}
}

func TestHeuristic(t *testing.T) {
	start := env.StartPosition()
	if h := Heuristic(&start, env.Red); h != 0 {
		t.Errorf("start: %d, want 0", h)
	}
	for seed := range uint64(20) {
		g := randomGame(t, seed, 30)
		p := g.Position()
		if r, b := Heuristic(&p, env.Red), Heuristic(&p, env.Blue); r != -b {
			t.Errorf("game %d: red %d, blue %d: want opposite scores", seed, r, b)
		}
	}
	cases := []struct {
		name   string
		stacks map[string]string
		want   int
	}{
		{"red has won", map[string]string{"a1": "rb", "c3": "r"}, WinScore},
		{"blue has won", map[string]string{"a1": "br"}, -WinScore},
		{"two red pieces under blue", map[string]string{"a1": "brr", "c3": "r"}, pieceWeight*(1-3) + stackWeight*(1-1)},
		{"more stacks", map[string]string{"a1": "r", "b1": "r", "c3": "bb"}, 0 + stackWeight},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := env.ParseFEN(fenOf(tc.stacks, 'b'))
			if err != nil {
				t.Fatal(err)
			}
			if h := Heuristic(&p, env.Red); h != tc.want {
				t.Errorf("got %d, want %d", h, tc.want)
			}
		})
	}
}
