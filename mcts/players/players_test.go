package players

import (
	"slices"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/internal/testgames"
)

// testPlayers builds one player of every kind that should find a win in
// one move, with small budgets.
func testPlayers(t *testing.T) map[string]mcts.Player {
	t.Helper()
	players := map[string]mcts.Player{
		"greedy": NewGreedyPlayer(1),
	}
	for _, spec := range []string{"alphabeta:depth=1", "alphabeta:depth=3", "alphabeta:time=50ms", "mcts:sims=300"} {
		p, err := NewPlayer(mustSpec(t, spec), 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ab, ok := p.(*AlphaBetaPlayer); ok {
			ab.now = tickingClock() // the timed one's time limit, off the wall clock
		}
		players[spec] = p
	}
	cfg := mcts.DefaultConfig()
	cfg.Simulations = 100
	p, err := mcts.NewPUCTPlayer(mcts.UniformEvaluator{}, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	players["puct-uniform"] = p
	return players
}

// tickingClock returns a clock for a player's time limit that advances a
// millisecond at every reading.
func tickingClock() func() time.Time {
	var now time.Time
	return func() time.Time { now = now.Add(time.Millisecond); return now }
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
	for _, tc := range testgames.WinInOneFENs {
		g := testgames.GameFromFEN(t, tc.FEN)
		pos := g.Position()
		wins := testgames.WinningMoves(pos, true)
		if len(wins) == 0 {
			t.Fatalf("%s: test position has no win in one", tc.Name)
		}
		if len(wins) == len(g.LegalMoves(nil)) {
			t.Fatalf("%s: every move wins: no test", tc.Name)
		}
		for name, p := range testPlayers(t) {
			t.Run(tc.Name+"/"+name, func(t *testing.T) {
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
	positions := testgames.WinInTwoPositions(t, 10)
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
				if !testgames.ForcesWin(pos, d.Move, true) {
					t.Errorf("played %v, which does not force a win in two (value %.2f, PV %v)", d.Move, d.Value, d.PV)
				}
			})
		}
	}
}

func TestAlphaBetaScoresWinsByDistance(t *testing.T) {
	pos := testgames.WinInTwoPositions(t, 1)[0]
	p, err := NewAlphaBetaPlayer(AlphaBetaConfig{Depth: 5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.Choose(env.NewGameFrom(pos, env.DefaultRules()))
	if err != nil {
		t.Fatal(err)
	}
	if d.Score != env.WinMaterial-3 || d.Depth != 3 || d.Value != 1 {
		t.Errorf("score %d at depth %d, value %v: want %d at depth 3 (a win at ply 3 stops the deepening), value 1", d.Score, d.Depth, d.Value, env.WinMaterial-3)
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
	// The search reads its clock every 1024 positions: a clock that
	// advances a millisecond a reading runs out after some 30 of them,
	// whatever the machine's load.
	p.now = tickingClock()
	g := testgames.RandomGame(t, 3, 20)
	d, err := p.Choose(g)
	if err != nil {
		t.Fatal(err)
	}
	if d.Nodes > 32*1024 {
		t.Errorf("%d positions searched: want at most 32 readings of the clock, 1024 apart", d.Nodes)
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
				g := testgames.RandomGame(t, seed, int(seed)*9)
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
	g := testgames.GameFromFEN(t, testgames.FEN(map[string]string{"a1": "r"}, 'b'))
	for name, p := range testPlayers(t) {
		if _, err := p.Choose(g); err == nil {
			t.Errorf("%s: no error for a finished game", name)
		}
	}
	if _, err := NewRandomPlayer(1).Choose(g); err == nil {
		t.Error("random: no error for a finished game")
	}
}

func TestGreedyMaximisesMaterial(t *testing.T) {
	for seed := range uint64(10) {
		g := testgames.RandomGame(t, seed, 15)
		d, err := NewGreedyPlayer(seed).Choose(g)
		if err != nil {
			t.Fatal(err)
		}
		pos := g.Position()
		best := -env.WinMaterial - 1
		for _, m := range g.LegalMoves(nil) {
			child := pos
			child.Apply(m)
			best = max(best, child.Material(pos.SideToMove()))
		}
		if d.Score != best {
			t.Errorf("game %d: greedy scored %d, best is %d", seed, d.Score, best)
		}
	}
}
