package train

import (
	"context"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/train/eval"
)

func TestEvalAgainst(t *testing.T) {
	greedy := eval.Entrant{Name: "greedy", New: func(seed uint64) (mcts.Player, error) { return players.NewGreedyPlayer(seed), nil }}
	random := eval.Entrant{Name: "random", New: func(seed uint64) (mcts.Player, error) { return players.NewRandomPlayer(seed), nil }}
	recs, err := eval.PlayMatch(context.Background(), greedy, random, eval.ArenaConfig{Rules: env.DefaultRules(), Games: 10, Parallel: 2, OpeningPlies: 2, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	res, err := evalAgainst(recs, "greedy", "random")
	if err != nil {
		t.Fatal(err)
	}
	if res.Games != 10 || res.Score <= 0.5 || !(res.EloLow < res.Elo && res.Elo < res.EloHigh) || res.Elo <= 0 {
		t.Errorf("greedy against random: %+v", res)
	}
	if want := eval.ConversionOf(recs, "greedy"); res.Conversion == nil || *res.Conversion != want || want.Decided == 0 {
		t.Errorf("greedy against random: conversion %+v, want %+v", res.Conversion, want)
	}
	if _, err := evalAgainst(recs, "greedy", "nobody"); err == nil {
		t.Error("evalAgainst an absent opponent succeeded")
	}
}

func TestConfigArena(t *testing.T) {
	cfg := Defaults()
	a := cfg.arena(9)
	if a.Games != cfg.Eval.Games || a.Parallel != cfg.Eval.ParallelGames || a.OpeningPlies != cfg.Eval.OpeningPlies ||
		a.Rules != cfg.Env.Rules || a.Seed != 9 {
		t.Errorf("Arena(9) = %+v", a)
	}
}
