package main

import "github.com/deathstacks/deathstacks/train/binding"

// network is a network's batched inference and weights
// (binding.Network), through the process's server for its model path.
type network struct{ *binding.Network }

func (*network) close() error { return nil }

// newNetwork loads the network of a model path ("" for the built-in
// player's) as az players do.
func newNetwork(path string) (*network, error) {
	nw, err := binding.NewNetwork(path, models().Load)
	if err != nil {
		return nil, err
	}
	return &network{Network: nw}, nil
}
