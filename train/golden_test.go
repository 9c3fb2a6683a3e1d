package train

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// The reference games: seeded self-play games, their every sample and
// target, and seeded searches of the built-in player, reduced to digests.
// A change that keeps what self-play produces must keep every digest; one
// that means to change it records the new digests with the reason in its
// commit. Floats print as the shortest text that reads back to the same
// bits, and maps in key order, so equal digests mean equal outputs.

// goldenSelfPlay is a small run's settings with every optional target on:
// a Gumbel root with fast searches, the win search, resignation,
// adjudication, a random opening and the auxiliary heads' targets.
const goldenSelfPlay = `
env:
  rules: {max_plies: 40}
  opening_plies: 2
model: {blocks: 1, channels: 8, value_planes: 1, value_hidden: 8, reply_head: true, ownership_head: true, score_head: true}
search:
  simulations: 16
  gumbel: true
  gumbel_considered: 8
  temperature: 1
  batch_size: 4
  win_search_plies: 5
  win_search_nodes: 2000
selfplay:
  fast_simulations: 4
  full_search_share: 0.5
  resign_threshold: -0.9
  resign_playout_share: 0.5
  adjudicate: true
  adjudicate_horizon: 6
  search_value_share: 0.2
replay: {surprise_share: 0.5}
`

func goldenDigest(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:8])
}

func TestGoldenSelfPlay(t *testing.T) {
	cfg, err := runconfig.Parse([]byte(goldenSelfPlay))
	if err != nil {
		t.Fatal(err)
	}
	net, err := LoadNetwork("")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		games int
		want  string
	}{
		{"one game", 1, "e72e0d15c2230b14"},
		{"four games", 4, "2eba90abf8b5f80a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			games := make([]SelfPlayGame, tc.games)
			err := SelfPlayGames(context.Background(), cfg, net, 11, tc.games, func(i int, g SelfPlayGame) error {
				games[i] = g
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, g := range games {
				w, won := g.Winner()
				fmt.Fprintf(&b, "moves %v plies %v resigned %v status %v adjudicated %v winner %v %v doubt %v %v\n",
					g.Moves, g.SamplePlies, g.Resigned, g.status, g.adjudicated, w, won, g.wouldResign, g.resignWrong)
				for _, s := range g.Samples {
					fmt.Fprintf(&b, "%+v\n", s)
				}
			}
			if got := goldenDigest(b.String()); got != tc.want {
				t.Errorf("digest %s, want %s", got, tc.want)
			}
		})
	}
}

// TestGoldenPlayer plays a few moves with the built-in player as
// LoadPlayer gives it, with its own search settings.
func TestGoldenPlayer(t *testing.T) {
	for _, tc := range []struct {
		sims int
		want string
	}{
		{16, "50afc544f349f86a"},
		{100, "f01d8dad97a6e3a3"},
	} {
		t.Run(fmt.Sprint(tc.sims), func(t *testing.T) {
			p, err := LoadPlayer("", tc.sims, 3)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			g := env.NewGame(env.DefaultRules())
			for range 6 {
				d, err := p.Choose(g)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "%+v\n%+v\n", d, p.RootMoves())
				if err := g.Play(d.Move); err != nil {
					t.Fatal(err)
				}
			}
			if got := goldenDigest(b.String()); got != tc.want {
				t.Errorf("digest %s, want %s", got, tc.want)
			}
		})
	}
}
