package mcts

import (
	"math/rand/v2"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/internal/arena"
	"github.com/deathstacks/deathstacks/mcts/internal/testgames"
)

// provenWinsDeeperThanTwo returns up to n small random positions whose
// search proves a win through a reply that is itself proven, not merely
// answered by a decisive move: a win the player must follow over more
// than one search.
func provenWinsDeeperThanTwo(t *testing.T, cfg Config, n int) []env.Position {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 3))
	var found []env.Position
	for try := 0; try < 400 && len(found) < n; try++ {
		pos, err := testgames.RandomSmallPosition(rng)
		if err != nil || pos.Finished() || len(testgames.WinningMoves(pos, true)) > 0 {
			continue
		}
		p := newPUCT(t, UniformEvaluator{}, cfg, 1)
		if _, err := p.Choose(env.NewGameFrom(pos, env.DefaultRules())); err != nil {
			t.Fatal(err)
		}
		win := p.s.winningChild()
		if win < 0 {
			continue
		}
		c := p.s.nodes.At(win)
		for _, d := range p.s.nodes.Children(c) {
			if d.State == arena.Terminal && d.Count > 0 {
				found = append(found, pos)
				break
			}
		}
	}
	if len(found) == 0 {
		t.Fatal("no position with a proven win deeper than two moves")
	}
	return found
}

func TestProvenWinsAreFollowed(t *testing.T) {
	// The player, once it has proven a win, plays it out against any
	// defence: every search after the first starts from the proof kept
	// in the tree, so even a search of one simulation plays on to the win.
	cfg := treeOnlyConfig()
	cfg.Simulations = 3000
	for i, pos := range provenWinsDeeperThanTwo(t, cfg, 4) {
		t.Run(pos.FEN(), func(t *testing.T) {
			p := newPUCT(t, UniformEvaluator{}, cfg, 1)
			g := env.NewGameFrom(pos, env.DefaultRules())
			rng := rand.New(rand.NewPCG(uint64(i), 9))
			for moves := 0; !g.Status().Over(); moves++ {
				sims := cfg.Simulations
				if moves > 0 {
					sims = 1
				}
				d, err := p.ChooseSimulations(g, sims)
				if err != nil {
					t.Fatal(err)
				}
				if moves > 0 && p.s.winningChild() < 0 {
					t.Fatalf("move %d: no proven win at the root after the reply", moves+1)
				}
				if err := g.Play(d.Move); err != nil {
					t.Fatal(err)
				}
				if replies := g.LegalMoves(nil); len(replies) > 0 {
					if err := g.Play(replies[rng.IntN(len(replies))]); err != nil {
						t.Fatal(err)
					}
				}
			}
			if w, ok := g.Status().Winner(); !ok || w != pos.SideToMove() {
				t.Errorf("the game ended %v after %d plies: want a win for %v", g.Status(), len(g.Moves()), pos.SideToMove())
			}
		})
	}
}

func TestChildrenAreTerminalExactlyWhenTheGameEnds(t *testing.T) {
	// Random small positions and the positions one move on (where the
	// mover often has a win), searched without history: a root child is
	// terminal at once exactly when its game is won on the board, and
	// then lost for its side to move.
	rng := rand.New(rand.NewPCG(5, 5))
	var positions []env.Position
	for len(positions) < 300 {
		pos, err := testgames.RandomSmallPosition(rng)
		if err != nil || pos.Finished() {
			continue
		}
		positions = append(positions, pos)
		moves := pos.LegalMoves(nil, true)
		next := pos
		next.Apply(moves[rng.IntN(len(moves))])
		if !next.Finished() {
			positions = append(positions, next)
		}
	}
	wins := 0
	for i, pos := range positions {
		p := newPUCT(t, UniformEvaluator{}, DefaultConfig(), 1)
		if err := p.s.prepare(env.NewGameFrom(pos, env.DefaultRules())); err != nil {
			t.Fatal(err)
		}
		if err := p.s.simulate(1, nil); err != nil { // the root's own evaluation
			t.Fatal(err)
		}
		winning := testgames.WinningMoves(pos, true)
		for _, ch := range p.s.rootChildren() {
			won := testgames.ContainsMove(winning, ch.Move)
			if (ch.State == arena.Terminal) != won || won && ch.Result != -1 {
				t.Fatalf("position %d %s: child %v has state %d, result %d: want terminal and lost for its mover: %v",
					i, pos.FEN(), ch.Move, ch.State, ch.Result, won)
			}
			if won {
				wins++
			}
		}
	}
	if wins == 0 {
		t.Fatal("no position with a winning move: the test shows nothing")
	}
}

func TestChildrenAtTheMoveLimitAreDraws(t *testing.T) {
	pos := env.StartPosition()
	rules := env.DefaultRules()
	pos.SetPly(rules.MaxPlies - 1)
	p := newPUCT(t, UniformEvaluator{}, DefaultConfig(), 1)
	if err := p.s.prepare(env.NewGameFrom(pos, rules)); err != nil {
		t.Fatal(err)
	}
	if err := p.s.simulate(1, nil); err != nil {
		t.Fatal(err)
	}
	for _, ch := range p.s.rootChildren() {
		if ch.State != arena.Terminal || ch.Result != 0 {
			t.Fatalf("child %v at ply %d: state %d, result %d: want a terminal draw", ch.Move, rules.MaxPlies, ch.State, ch.Result)
		}
	}
}
