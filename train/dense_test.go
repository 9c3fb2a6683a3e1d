package train

import (
	"context"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// Write puts each sample's targets at its actions' columns, zero
// elsewhere, game after game, and refuses arrays of the wrong length.
func TestDenseSamples(t *testing.T) {
	cfg, err := runconfig.SelfPlaySettings(map[string]string{"sims": "8", "fast_simulations": "0", "max_plies": "30"})
	if err != nil {
		t.Fatal(err)
	}
	var games []SelfPlayGame
	for i := range 2 {
		g, err := PlaySelfPlayGame(context.Background(), cfg, mcts.UniformEvaluator{}, 3, i)
		if err != nil {
			t.Fatal(err)
		}
		games = append(games, g)
	}
	n := len(games[0].Samples) + len(games[1].Samples)
	const a = env.NumActions
	d := DenseSamples{Obs: make([]float32, n*env.ObservationSize), Mask: make([]bool, n*a), Policy: make([]float32, n*a),
		Value: make([]float32, n), Game: make([]int64, n), Ply: make([]int64, n), Reply: make([]float32, n*a),
		HasReply: make([]bool, n), Ownership: make([]float32, n*env.NumSquares), Score: make([]float32, n)}
	for i := range d.Policy {
		d.Policy[i], d.Reply[i] = 9, 9 // overwritten
	}
	if err := d.Write(games); err != nil {
		t.Fatal(err)
	}
	k := 0
	for i, g := range games {
		for j, s := range g.Samples {
			legal, sum, replySum := 0, float32(0), float32(0)
			for act := range a {
				if d.Mask[k*a+act] {
					legal++
				}
				sum += d.Policy[k*a+act]
				replySum += d.Reply[k*a+act]
			}
			for l, act := range s.Legal {
				if !d.Mask[k*a+int(act)] || d.Policy[k*a+int(act)] != s.Policy[l] {
					t.Fatalf("sample %d, action %v: mask %v, policy %v: want %v", k, act, d.Mask[k*a+int(act)], d.Policy[k*a+int(act)], s.Policy[l])
				}
			}
			if legal != len(s.Legal) || sum < 0.999 || sum > 1.001 || d.Value[k] != s.Value || d.Game[k] != int64(i) ||
				d.Ply[k] != int64(g.SamplePlies[j]) || d.HasReply[k] != (s.Reply != nil) || (s.Reply == nil) != (replySum == 0) ||
				d.Score[k] != s.Score || d.Obs[k*env.ObservationSize+5] != s.Obs[5] || d.Ownership[k*env.NumSquares+7] != s.Ownership[7] {
				t.Fatalf("sample %d of game %d: %d legal, policy sum %v, reply sum %v", k, i, legal, sum, replySum)
			}
			k++
		}
	}
	err = DenseSamples{Policy: make([]float32, 3)}.Write(games)
	if err == nil || !strings.Contains(err.Error(), "policy has 3 entries") {
		t.Errorf("short policy: %v", err)
	}
}
