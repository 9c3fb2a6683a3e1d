package arena_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/arena"
)

// TestGoldenRoundRobin is the reference tournament: a seeded round robin
// of the baselines and the built-in player (loaded as the commands load
// it), its records (without the move times) and scores reduced to a
// digest. A change that keeps the arena's games must keep it; one that
// means to change them records the new digest with the reason in its
// commit. The digest is the same whatever the number of games at once.
func TestGoldenRoundRobin(t *testing.T) {
	const want = "3365c2bf40e441a6"
	models := train.NewModels(model.DefaultServerConfig(), nil)
	t.Cleanup(func() { models.Close() })
	specs := []string{"random", "greedy", "alphabeta:depth=1", "az:sims=8"}
	var contenders []arena.Contender
	for _, text := range specs {
		spec, err := players.ParseSpec(text)
		if err != nil {
			t.Fatal(err)
		}
		contenders = append(contenders, arena.SpecContender(text, spec, models.Load))
	}
	rules := env.DefaultRules()
	rules.MaxPlies = 80
	for _, parallel := range []int{1, 3} {
		t.Run(fmt.Sprint(parallel), func(t *testing.T) {
			cfg := arena.Config{Rules: rules, Games: 4, Parallel: parallel, OpeningPlies: 4, Seed: 5}
			records, err := arena.RoundRobin(context.Background(), arena.Entrants(contenders), cfg)
			if err != nil {
				t.Fatal(err)
			}
			h := sha256.New()
			for _, r := range records {
				r.MoveMS = nil
				line, err := json.Marshal(r)
				if err != nil {
					t.Fatal(err)
				}
				h.Write(append(line, '\n'))
			}
			for _, name := range specs {
				points, games := arena.ScoreOf(records, name)
				fmt.Fprintf(h, "%s %v %d\n", name, points, games)
			}
			if got := hex.EncodeToString(h.Sum(nil)[:8]); got != want {
				t.Errorf("digest %s, want %s", got, want)
			}
		})
	}
}
