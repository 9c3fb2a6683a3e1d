package main

import (
	"fmt"
	"io"

	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
)

// specFlagHelp explains the --player flag of the commands that take one.
var specFlagHelp = "the player: KIND or KIND:KEY=VALUE,KEY=VALUE... with these kinds and keys:\n" + players.SpecHelp()

// newModels returns the az players' networks, reporting what a load passes
// over to warn.
func newModels(warn io.Writer) *train.Models {
	return train.NewModels(model.DefaultServerConfig(), warn)
}

// buildPlayer parses a player spec and builds the player with its seed; az
// players get their networks from models.
func buildPlayer(models *train.Models, text string, seed uint64) (mcts.Player, error) {
	if text == "" {
		return nil, fmt.Errorf("no player given: want a spec such as alphabeta:depth=4")
	}
	spec, err := players.ParseSpec(text)
	if err != nil {
		return nil, err
	}
	return players.NewPlayer(spec, seed, models.Load)
}
