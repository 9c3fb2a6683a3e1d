package train_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/train"
)

// A trained player is one call away: LoadPlayer reads an exported player
// file (or a checkpoint, or a run directory) and returns a search player.
func ExampleLoadPlayer() {
	path := filepath.Join("checkpoints", "default", "player.dsnn")
	if _, err := os.Stat(path); err != nil {
		fmt.Println("export a player first: deathstacks export --checkpoint checkpoints/default --out", path)
		return
	}
	player, err := train.LoadPlayer(path, 200, 1)
	if err != nil {
		log.Fatal(err)
	}
	game := env.NewGame(env.DefaultRules())
	d, err := player.Choose(game)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("move:", d.Move)
}
