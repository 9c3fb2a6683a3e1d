package mcts_test

import (
	"fmt"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
)

func ExampleNewPUCTPlayer() {
	// A self-play step: search, record the visit distribution as the
	// policy target, play the chosen move.
	cfg := mcts.DefaultConfig()
	cfg.Simulations = 200
	cfg.DirichletEpsilon = 0.25 // exploration noise at the root
	cfg.Temperature, cfg.TemperaturePlies = 1, 20
	player, err := mcts.NewPUCTPlayer(mcts.UniformEvaluator{}, cfg, 7)
	if err != nil {
		fmt.Println(err)
		return
	}
	game := env.NewGame(env.DefaultRules())
	d, _ := player.Choose(game)
	visits := 0 // d.Visits: the root's visits of each legal action
	for _, n := range d.Visits {
		visits += n
	}
	fmt.Println(len(d.Visits) == len(game.LegalMoves(nil)), visits >= 200, d.Simulations, game.Play(d.Move))
	// Output: true true 200 <nil>
}
