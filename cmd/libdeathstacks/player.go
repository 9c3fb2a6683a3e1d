package main

import (
	"os"
	"sync"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/binding"
)

// models are the az players' and the networks' networks, each loaded once
// and served by one batching server for every handle of the process.
var models = sync.OnceValue(func() *train.Models {
	return train.NewModels(model.DefaultServerConfig(), os.Stderr)
})

// closePlayer closes a player that holds a resource.
var closePlayer = binding.ClosePlayer

// player is a player of any spec.
type player struct {
	*binding.Player
	// last is the last decision, as JSON, for a caller whose buffer was
	// too short for it.
	last string
}

// close stops what the player holds: an external program is killed and
// reaped.
func (p *player) close() error { return p.Close() }

func newPlayer(spec string, seed uint64) (*player, error) {
	p, err := binding.NewPlayer(spec, seed, models().Load)
	if err != nil {
		return nil, err
	}
	return &player{Player: p}, nil
}

// choose returns the player's decision in the game of a FEN and the moves
// since, as JSON. A search that waits on a network server runs off the
// caller's thread (see offThread): 104 moves a second at 200 simulations
// from Python, 78 on the caller's thread.
func (p *player) choose(fen, moves string, rules env.Rules) (string, error) {
	run := func(search func() error) error { return search() }
	if p.WaitsOnServer() {
		run = offThread
	}
	t, err := p.Choose(binding.PositionOf(fen, moves), rules, run)
	if err != nil {
		return "", err
	}
	p.last = t
	return t, nil
}
