package arena

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/train/elo"
)

// scriptedEntrants are two players whose games end as a script says, A's
// result game by game ('W', 'D' or 'L'): the loser fails at its first
// move, and in a draw both play on to the move limit. Each player finds
// its game's number from its seed, as the arena derives seeds.
func scriptedEntrants(cfg Config, script string) (a, b Entrant) {
	jobs := roundRobinJobs([]Entrant{{Name: "a"}, {Name: "b"}}, cfg)
	game := map[uint64]int{}
	for _, j := range jobs {
		game[j.redSeed], game[j.blueSeed] = j.index, j.index
	}
	player := func(loses byte) PlayerFactory {
		return func(seed uint64) (mcts.Player, error) {
			result := script[game[seed]%len(script)]
			return playerFunc(func(g *env.Game) (mcts.Decision, error) {
				if result == loses {
					return mcts.Decision{}, errors.New("scripted to lose")
				}
				return mcts.Decision{Move: g.LegalMoves(nil)[0]}, nil
			}), nil
		}
	}
	return Entrant{Name: "a", New: player('L')}, Entrant{Name: "b", New: player('W')}
}

// sprtConfig is the arena of the SPRT tests: games of 6 plies, so that a
// game nobody loses is a draw at the move limit.
func sprtConfig(games int) Config {
	rules := env.DefaultRules()
	rules.MaxPlies = 6
	return Config{Rules: rules, Games: games, Parallel: 1, OpeningPlies: 2, Seed: 9}
}

// serialDecision applies the test to the script's pairs one at a time:
// the decision and the pairs it took, or inconclusive after all.
func serialDecision(test elo.SPRT, script string, pairs int) (string, int) {
	var counts elo.Pentanomial
	points := map[byte]int{'W': 2, 'D': 1, 'L': 0}
	for k := range pairs {
		counts[points[script[2*k%len(script)]]+points[script[(2*k+1)%len(script)]]]++
		if r := test.Result(counts); r.Decision != elo.SPRTInconclusive {
			return r.Decision, k + 1
		}
	}
	return elo.SPRTInconclusive, pairs
}

// PlaySPRT stops at the pair where the test, applied pair by pair in
// order, first crosses a bound, however many games run at once, and
// returns the games of the pairs counted; with the games run out first it
// is inconclusive.
func TestPlaySPRTDecides(t *testing.T) {
	for _, tc := range []struct {
		name   string
		test   elo.SPRT
		script string
		games  int
		want   string
	}{
		{"A wins every game", elo.SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.05}, "W", 60, elo.SPRTH1},
		{"A wins most", elo.SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.05}, "WDWWLWDW", 200, elo.SPRTH1},
		{"A loses most", elo.SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.1}, "LDLWLLDL", 200, elo.SPRTH0},
		{"even against symmetric hypotheses", elo.SPRT{Elo0: -20, Elo1: 20, Alpha: 0.05, Beta: 0.05}, "WL", 20, elo.SPRTInconclusive},
		{"too few games", elo.SPRT{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.05}, "WDDL", 8, elo.SPRTInconclusive},
	} {
		wantDecision, wantPairs := serialDecision(tc.test, tc.script, tc.games/2)
		if wantDecision != tc.want {
			t.Fatalf("%s: the script decides %s, not %s: fix the test", tc.name, wantDecision, tc.want)
		}
		for _, parallel := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s, parallel %d", tc.name, parallel), func(t *testing.T) {
				cfg := sprtConfig(tc.games)
				cfg.Parallel = parallel
				a, b := scriptedEntrants(cfg, tc.script)
				var seen []int
				recs, res, err := PlaySPRT(context.Background(), a, b, cfg, tc.test, func(r elo.SPRTResult) { seen = append(seen, r.Pairs) })
				if err != nil {
					t.Fatal(err)
				}
				if res.Decision != wantDecision || res.Pairs != wantPairs {
					t.Errorf("%s after %d pairs, want %s after %d", res.Decision, res.Pairs, wantDecision, wantPairs)
				}
				if len(recs) != 2*res.Pairs || !slices.IsSortedFunc(recs, func(x, y GameRecord) int { return x.Game - y.Game }) {
					t.Errorf("%d records for %d pairs, or not in game order", len(recs), res.Pairs)
				}
				for i, r := range recs {
					if want := pointsOf(tc.script[i%len(tc.script)]); r.Game != i || r.Score("a") != want {
						t.Errorf("game %d: record of game %d, A scored %v, want %v", i, r.Game, r.Score("a"), want)
					}
				}
				if !slices.IsSorted(seen) || len(seen) == 0 || seen[len(seen)-1] != res.Pairs {
					t.Errorf("the test's states counted %v pairs: want a rising count ending at %d", seen, res.Pairs)
				}
				start := tc.test.Result(elo.Pentanomial{})
				if res.Lower != start.Lower || res.Upper != start.Upper || res.Elo0 != tc.test.Elo0 || res.Elo1 != tc.test.Elo1 || res.Alpha != tc.test.Alpha || res.Beta != tc.test.Beta {
					t.Errorf("result %+v does not carry the test %+v", res, tc.test)
				}
			})
		}
	}
}

func pointsOf(result byte) float64 {
	return map[byte]float64{'W': 1, 'D': 0.5, 'L': 0}[result]
}

// A test given games played before (in any order, some past the pair
// that decides, as a parallel run stopped late leaves them) decides on the
// same pairs and returns the same games as one played in one go.
func TestPlaySPRTResumed(t *testing.T) {
	test := elo.SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.05}
	cfg := sprtConfig(200)
	a, b := scriptedEntrants(cfg, "WDWWLWDW")
	full, want, err := PlaySPRT(context.Background(), a, b, cfg, test, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The games past the decision that a parallel run may have finished.
	more := cfg
	more.Games = len(full) + 6
	extra, err := PlayMatch(context.Background(), a, b, more)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		played []GameRecord
	}{
		{"none", nil},
		{"the first pair's first game", extra[:1]},
		{"every other game, backwards", func() []GameRecord {
			var out []GameRecord
			for i := len(full) - 1; i >= 0; i -= 2 {
				out = append(out, extra[i])
			}
			return out
		}()},
		{"all up to the decision", extra[:len(full)]},
		{"some past the decision", extra},
		{"only past the decision", extra[len(full):]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			c.Parallel, c.Played = 2, slices.Clone(tc.played)
			got, res, err := PlaySPRT(context.Background(), a, b, c, test, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res != want {
				t.Errorf("resumed: %+v, want %+v", res, want)
			}
			if !reflect.DeepEqual(untimed(t, got), untimed(t, slices.Clone(full))) {
				t.Error("the resumed test's games differ from the one played in one go")
			}
		})
	}
}

func TestPlaySPRTBadSetup(t *testing.T) {
	good := elo.SPRT{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.05}
	for _, tc := range []struct {
		name  string
		test  elo.SPRT
		games int
		want  string
	}{
		{"odd games", good, 7, "games is 7: want an even number"},
		{"elo0 above elo1", elo.SPRT{Elo0: 10, Elo1: 0, Alpha: 0.05, Beta: 0.05}, 8, "elo0 is 10: want less than elo1 (0)"},
		{"beta too big", elo.SPRT{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.5}, 8, "beta is 0.5: want more than 0 and less than 0.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sprtConfig(tc.games)
			a, b := scriptedEntrants(cfg, "W")
			_, _, err := PlaySPRT(context.Background(), a, b, cfg, tc.test, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
