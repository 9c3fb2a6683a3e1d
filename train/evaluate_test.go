package train

import (
	"context"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/report"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

func TestEvalAgainst(t *testing.T) {
	greedy := arena.Entrant{Name: "greedy", New: func(seed uint64) (mcts.Player, error) { return players.NewGreedyPlayer(seed), nil }}
	random := arena.Entrant{Name: "random", New: func(seed uint64) (mcts.Player, error) { return players.NewRandomPlayer(seed), nil }}
	recs, err := arena.PlayMatch(context.Background(), greedy, random, arena.Config{Rules: env.DefaultRules(), Games: 10, Parallel: 2, OpeningPlies: 2, Seed: 4})
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
	if want := report.ConversionOf(recs, "greedy"); res.Conversion == nil || *res.Conversion != want || want.Decided == 0 {
		t.Errorf("greedy against random: conversion %+v, want %+v", res.Conversion, want)
	}
	if _, err := evalAgainst(recs, "greedy", "nobody"); err == nil {
		t.Error("evalAgainst an absent opponent succeeded")
	}
}

func TestConfigArena(t *testing.T) {
	cfg := runconfig.Defaults()
	a := arenaConfig(cfg, 9)
	if a.Games != cfg.Eval.Games || a.Parallel != cfg.Eval.ParallelGames || a.OpeningPlies != cfg.Eval.OpeningPlies ||
		a.Rules != cfg.Env.Rules || a.Seed != 9 {
		t.Errorf("Arena(9) = %+v", a)
	}
}

// The evaluation of a run loads an az baseline as every command does: az
// alone is the built-in player.
func TestEvaluateAZBaseline(t *testing.T) {
	cfg := smokeConfig(t, t.TempDir())
	cfg.Eval.Baselines = []string{"az:simulations=2"}
	r := &runner{cfg: cfg, log: io.Discard}
	net, err := model.New(cfg.Model, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	r.player = net
	var m metrics.Iteration
	if err := r.evaluate(context.Background(), 1, &m); err != nil {
		t.Fatal(err)
	}
	if res, ok := m.Eval["az:simulations=2"]; !ok || res.Games != cfg.Eval.Games {
		t.Errorf("eval %+v: want %d games against the built-in player", m.Eval, cfg.Eval.Games)
	}
}
