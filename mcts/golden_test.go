package mcts

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/internal/testgames"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/builtin"
)

// The reference searches: seeded searches of fixed positions, their every
// decision and root statistics reduced to a digest. A change that keeps the
// search's results must keep every digest; one that means to change them
// records the new digests with the reason in its commit.

// goldenDigest is the first 16 hex digits of the SHA-256 of text.
func goldenDigest(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:8])
}

// goldenFloat writes a float exactly (the shortest text that reads back
// to the same bits).
func goldenFloat(b *strings.Builder, x float64) {
	b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	b.WriteByte(' ')
}

func goldenMoves(b *strings.Builder, ms []env.Move) {
	for _, m := range ms {
		b.WriteString(m.String())
		b.WriteByte(' ')
	}
	b.WriteByte('|')
}

// writeDecision writes everything a decision and the player's root
// statistics hold, in a fixed order.
func writeDecision(b *strings.Builder, d Decision, roots []MoveStats) {
	fmt.Fprintf(b, "move %v sims %d depth %d score %d nodes %d value ", d.Move, d.Simulations, d.Depth, d.Score, d.Nodes)
	goldenFloat(b, d.Value)
	goldenMoves(b, d.PV)
	for _, a := range slices.Sorted(maps.Keys(d.Visits)) {
		fmt.Fprintf(b, "%d:%d ", a, d.Visits[a])
	}
	b.WriteByte('|')
	for _, a := range slices.Sorted(maps.Keys(d.Target)) {
		fmt.Fprintf(b, "%d:", a)
		goldenFloat(b, float64(d.Target[a]))
	}
	b.WriteByte('|')
	for _, r := range roots {
		fmt.Fprintf(b, "%v %d ", r.Move, r.Visits)
		goldenFloat(b, float64(r.Prior))
		goldenFloat(b, r.Q)
		goldenMoves(b, r.PV)
	}
	b.WriteByte('\n')
}

// goldenSearches plays plies moves of each game with one seeded player
// per game (so that tree reuse, when on, carries over between its moves),
// every fast-th search of fast simulations (0: none), and returns the
// digest of all decisions.
func goldenSearches(t *testing.T, eval Evaluator, cfg Config, games []*env.Game, plies, fast int) string {
	t.Helper()
	var b strings.Builder
	for i, g := range games {
		g = g.Clone()
		p := newPUCT(t, eval, cfg, uint64(i)+1)
		for ply := 0; ply < plies && !g.Status().Over(); ply++ {
			var d Decision
			var err error
			if fast > 0 && ply%fast == fast-1 {
				d, err = p.ChooseSimulations(g, cfg.Simulations/4)
			} else {
				d, err = p.Choose(g)
			}
			if err != nil {
				t.Fatalf("game %d ply %d: %v", i, ply, err)
			}
			writeDecision(&b, d, p.RootMoves())
			if err := g.Play(d.Move); err != nil {
				t.Fatal(err)
			}
		}
	}
	return goldenDigest(b.String())
}

// goldenGames are the positions the reference searches start from: the
// start, games in their middle and positions with a win in one move.
func goldenGames(t *testing.T) []*env.Game {
	games := []*env.Game{env.NewGame(env.DefaultRules())}
	games = append(games, testgames.MiddleGames(t)...)
	for _, tc := range testgames.WinInOneFENs[:2] {
		games = append(games, testgames.GameFromFEN(t, tc.FEN))
	}
	return games
}

// goldenConfigs are the settings of the reference searches, from
// DefaultConfig with sims simulations.
func goldenConfigs(sims int) []struct {
	name string
	cfg  Config
	fast int
} {
	base := DefaultConfig()
	base.Simulations = sims
	noWin := base
	noWin.WinSearchPlies, noWin.ReuseTree = 0, false
	noise := base
	noise.DirichletEpsilon, noise.Temperature, noise.TemperaturePlies = 0.25, 1, 30
	noise.BatchSize, noise.DrawCost, noise.CPuctBase = 1, 0.1, 0
	gumbel := base
	gumbel.Gumbel, gumbel.Temperature, gumbel.TemperaturePlies, gumbel.WinSearchNodes = true, 1, 1000, 20000
	gumbelPlain := gumbel
	gumbelPlain.WinSearchPlies, gumbelPlain.ReuseTree, gumbelPlain.MaterialUtility, gumbelPlain.Contempt = 0, false, 0, 0
	return []struct {
		name string
		cfg  Config
		fast int
	}{
		{"puct", base, 0},
		{"puct without win search or reuse", noWin, 0},
		{"puct with noise and temperature", noise, 0},
		{"gumbel with fast searches", gumbel, 2},
		{"gumbel without win search or reuse", gumbelPlain, 0},
	}
}

// TestGoldenSearches guides the searches by a hashed evaluator and by the
// built-in player's network, read as every command reads it.
func TestGoldenSearches(t *testing.T) {
	net, err := model.ReadNetwork(builtin.Open())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{ // the hashed evaluator's, the network's
		"puct":                               {"9da2b3c23a8ea940", "cd7b07d0a46ca8a7"},
		"puct without win search or reuse":   {"3e35e780b60daa4d", "56ba38cbd0f05bae"},
		"puct with noise and temperature":    {"ffb1beb75ea83ffa", "2995acae7ddf0681"},
		"gumbel with fast searches":          {"c98f3b7e2d2b637f", "0138a16380be21bd"},
		"gumbel without win search or reuse": {"46f1d334678e03fa", "0389073e52910c8c"},
	}
	games := goldenGames(t)
	for k, ev := range []struct {
		name        string
		eval        Evaluator
		sims, plies int
	}{{"hashed", hashEvaluator{}, 200, 4}, {"network", net, 64, 3}} {
		for _, tc := range goldenConfigs(ev.sims) {
			t.Run(ev.name+" "+tc.name, func(t *testing.T) {
				if got := goldenSearches(t, ev.eval, tc.cfg, games, ev.plies, tc.fast); got != want[tc.name][k] {
					t.Errorf("digest %s, want %s", got, want[tc.name][k])
				}
			})
		}
	}
}
