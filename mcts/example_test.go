package mcts_test

import (
	"fmt"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
)

func ExampleParseSpec() {
	spec, err := mcts.ParseSpec("alphabeta:time=0.5s,depth=06")
	fmt.Println(spec, err)
	_, err = mcts.ParseSpec("alphabeta:nodes=5")
	fmt.Println(err)
	// Output:
	// alphabeta:time=500ms,depth=6 <nil>
	// player spec "alphabeta:nodes=5": alphabeta has no key "nodes": valid keys are depth, time
}

func ExampleNewPlayer() {
	// Red to move can take Blue's last stack: c4-1-c3.
	pos, _ := env.ParseFEN(",,,,,/,,,,,/,,r,,,/,,b,,,/,,,,,/,,,,, r")
	game := env.NewGameFrom(pos, env.DefaultRules())
	spec, _ := mcts.ParseSpec("alphabeta:depth=3")
	player, err := mcts.NewPlayer(spec, 1, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	d, _ := player.Choose(game)
	fmt.Println(d.Move, d.Score == mcts.WinScore-1, d.Depth)
	// Output: c4-1-c3 true 1
}

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
	policy := d.VisitPolicy(nil) // len env.NumActions, sums to 1
	var total float32
	for _, p := range policy {
		total += p
	}
	fmt.Println(len(policy), total > 0.999, d.Simulations, game.Play(d.Move))
	// Output: 6912 true 200 <nil>
}
