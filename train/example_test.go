package train_test

import (
	"fmt"
	"log"
	"path/filepath"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/train"
)

// A trained player is one call away: LoadPlayer reads an exported player
// file (or a checkpoint, a network snapshot or a run directory; "" for the
// built-in player) and returns a search player. Here the built-in player's
// own file plays the first move of a game, with at most 50 simulations.
func ExampleLoadPlayer() {
	player, err := train.LoadPlayer(filepath.Join("builtin", "player.dsnn"), 50, 1)
	if err != nil {
		log.Fatal(err)
	}
	game := env.NewGame(env.DefaultRules())
	d, err := player.Choose(game)
	if err != nil {
		log.Fatal(err)
	}
	// The move itself, and the simulations (the built-in player also
	// searches for at most a second), depend on the network and the
	// machine: the example prints what does not.
	pos := game.Position()
	fmt.Println("legal:", pos.IsLegal(d.Move, true), "searched:", d.Simulations > 0)
	// Output: legal: true searched: true
}
