package model_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/deathstacks/deathstacks/model"
)

// A network with an auxiliary head trains it; players get the network
// without it, which plays the same.
func ExampleNetwork_WithoutAux() {
	cfg := model.DefaultConfig()
	cfg.ReplyHead = true
	net, err := model.New(cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	player := net.WithoutAux()
	fmt.Println(net.Config(), net.NumParams())
	fmt.Println(player.Config(), player.NumParams())
	// Output:
	// 3x32 (value 2/64) +reply 85763
	// 3x32 (value 2/64) 79427
}
