package players

import (
	"strconv"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/internal/testgames"
)

// wonPositions are positions Red has all but won: a big material lead,
// Blue down to two stacks that no single move captures together.
var wonPositions = []string{
	testgames.FEN(map[string]string{"c3": "rrrr", "d4": "rrr", "b5": "rr", "a1": "r", "f6": "b", "f1": "bb"}, 'r'),
	testgames.FEN(map[string]string{"c3": "rrbr", "e5": "rrr", "a6": "rr", "f1": "bb", "a1": "b"}, 'r'),
	testgames.FEN(map[string]string{"d3": "rrrr", "c4": "rrrr", "f6": "bbb", "a1": "b"}, 'b'),
	testgames.FEN(map[string]string{"b2": "rrr", "e2": "rr", "c5": "rbrr", "f4": "bb", "a6": "bb"}, 'r'),
}

// playFrom plays a game from fen between a PUCT player guided by eval,
// with the given contempt, for the side ahead and opponent for the other,
// and returns how it ended and after how many plies.
func playFrom(t *testing.T, fen string, eval mcts.Evaluator, contempt float64, opponent mcts.Player) (env.Status, int) {
	t.Helper()
	g := testgames.GameFromFEN(t, fen)
	cfg := mcts.DefaultConfig()
	cfg.Simulations, cfg.Contempt = 200, contempt
	ahead, err := mcts.NewPUCTPlayer(eval, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	pos := g.Position()
	side := pos.SideToMove()
	if pos.Material(side) < 0 {
		side = side.Other()
	}
	for !g.Status().Over() {
		p := opponent
		if pos := g.Position(); pos.SideToMove() == side {
			p = ahead
		}
		d, err := p.Choose(g)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Play(d.Move); err != nil {
			t.Fatal(err)
		}
	}
	return g.Status(), len(g.Moves())
}

func TestContemptConvertsWonPositions(t *testing.T) {
	// A search that knows a little material, with contempt, finishes
	// every won position well inside the move limit, against a random and
	// a greedy defender. (With the uniform evaluator, which knows nothing,
	// greedy's defence draws some by repetition, contempt or not: contempt
	// steers the search away from draws, a value must steer it to a win.)
	const within = 60
	for i, fen := range wonPositions {
		for _, opp := range []string{"random", "greedy"} {
			t.Run(opp+"/"+strconv.Itoa(i), func(t *testing.T) {
				o, err := NewPlayer(mustSpec(t, opp), 2, nil)
				if err != nil {
					t.Fatal(err)
				}
				st, plies := playFrom(t, fen, materialEvaluator(0.2), 0.5, o)
				if _, won := st.Winner(); !won || plies > within {
					t.Errorf("%s: %v after %d plies: want a win within %d", fen, st, plies, within)
				}
			})
		}
	}
}

// materialEvaluator gives uniform priors and values scale*tanh(material/50)
// for the side to move, read from the observation: a stand-in for a
// network that knows material a little.
type materialEvaluator float32

func (scale materialEvaluator) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	for i := range values {
		o := obs[i*env.ObservationSize : (i+1)*env.ObservationSize]
		score := 0
		for sq := range env.NumSquares {
			height := int(o[14*env.NumSquares+sq]*12 + 0.5)
			switch {
			case o[sq] == 1:
				score += env.PieceMaterial*height + env.StackMaterial
			case o[env.NumSquares+sq] == 1:
				score -= env.PieceMaterial*height + env.StackMaterial
			}
		}
		for j := range priors[i] {
			priors[i][j] = 1 / float32(len(priors[i]))
		}
		values[i] = float32(scale) * float32(env.MaterialValue(score))
	}
	return nil
}
