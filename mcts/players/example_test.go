package players_test

import (
	"fmt"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/players"
)

func ExampleParseSpec() {
	spec, err := players.ParseSpec("alphabeta:time=0.5s,depth=06")
	fmt.Println(spec, err)
	_, err = players.ParseSpec("alphabeta:nodes=5")
	fmt.Println(err)
	// Output:
	// alphabeta:time=500ms,depth=6 <nil>
	// player spec "alphabeta:nodes=5": alphabeta has no key "nodes": valid keys are depth, time
}

func ExampleNewPlayer() {
	// Red to move can take Blue's last stack: c4-1-c3.
	pos, _ := env.ParseFEN(",,,,,/,,,,,/,,r,,,/,,b,,,/,,,,,/,,,,, r")
	game := env.NewGameFrom(pos, env.DefaultRules())
	spec, _ := players.ParseSpec("alphabeta:depth=3")
	player, err := players.NewPlayer(spec, 1, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	d, _ := player.Choose(game)
	fmt.Println(d.Move, d.Score == env.WinMaterial-1, d.Depth)
	// Output: c4-1-c3 true 1
}
