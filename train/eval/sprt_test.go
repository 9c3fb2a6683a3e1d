package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
)

// The LLR against values worked out by hand (the first) and with a
// calculator, from the formula of SPRT.llr with half a virtual pair in
// each outcome.
func TestSPRTLLR(t *testing.T) {
	for _, tc := range []struct {
		name       string
		elo0, elo1 float64
		counts     pentanomial
		want       float64
	}{
		// Counts 0.5 0.5 0.5 0.5 6.5 (n 8.5): mean 7.25/8.5 = 0.852941,
		// E[x²] 6.9375/8.5 = 0.816176, variance 0.088668; s0 0.5, s1
		// 0.640065: 8.5 × 0.140065 × (1.705882 − 1.140065) / 0.177336.
		{"six pairs won twice", 0, 100, pentanomial{0, 0, 0, 0, 6}, 3.798646},
		{"no pairs", 0, 10, pentanomial{}, 0},
		{"draws against symmetric hypotheses", -10, 10, pentanomial{0, 0, 5, 0, 0}, 0},
		{"100 pairs ahead", 0, 10, pentanomial{1, 11, 47, 25, 16}, 2.687175},
		{"400 pairs ahead", 0, 10, pentanomial{4, 44, 188, 100, 64}, 11.069849},
		{"100 pairs behind", 0, 10, pentanomial{16, 25, 47, 11, 1}, -3.073307},
		{"even, H0 at 0", 0, 5, pentanomial{10, 20, 40, 20, 10}, -0.034810},
		{"six pairs lost twice", 0, 100, pentanomial{6, 0, 0, 0, 0}, -5.679314},
	} {
		t.Run(tc.name, func(t *testing.T) {
			test := SPRT{Elo0: tc.elo0, Elo1: tc.elo1, Alpha: 0.05, Beta: 0.05}
			if got := test.llr(tc.counts); math.Abs(got-tc.want) > 5e-6 {
				t.Errorf("LLR(%v) = %.6f, want %.6f", tc.counts, got, tc.want)
			}
		})
	}
}

func TestSPRTBounds(t *testing.T) {
	for _, tc := range []struct {
		alpha, beta  float64
		lower, upper float64
	}{
		{0.05, 0.05, -2.944439, 2.944439},
		{0.05, 0.1, -2.251292, 2.890372},
		{0.01, 0.2, -1.599388, 4.382027},
	} {
		t.Run(fmt.Sprintf("alpha %g beta %g", tc.alpha, tc.beta), func(t *testing.T) {
			lower, upper := SPRT{Elo0: 0, Elo1: 5, Alpha: tc.alpha, Beta: tc.beta}.bounds()
			if math.Abs(lower-tc.lower) > 5e-6 || math.Abs(upper-tc.upper) > 5e-6 {
				t.Errorf("bounds %.6f %.6f, want %.6f %.6f", lower, upper, tc.lower, tc.upper)
			}
		})
	}
}

// Properties of the LLR over random results: better results never lower
// it where the test is used (the normal approximation is not monotone in
// every single step, such as one more pair of a win and a draw when most
// are, but turning a pair's result into its mirror image, two losses into
// two wins or a loss and a draw into a win and a draw, always raises it,
// with hypotheses within ±100 Elo), its sign follows the mean score, and
// swapping the players (and their hypotheses) negates it.
func TestSPRTLLRProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 22))
	randomCounts := func() pentanomial {
		var p pentanomial
		scale := []int{1, 3, 10, 50, 300}[rng.IntN(5)]
		for i := range p {
			p[i] = rng.IntN(scale + 1)
		}
		return p
	}
	randomTest := func() SPRT {
		elo0 := rng.Float64()*200 - 100
		return SPRT{Elo0: elo0, Elo1: elo0 + 0.1 + rng.Float64()*(100-elo0), Alpha: 0.05, Beta: 0.05}
	}
	for _, tc := range []struct {
		name string
		// holds checks the property for one test and one sample.
		holds func(test SPRT, p pentanomial) (bool, string)
	}{
		{"mirrored results raise it", func(test SPRT, p pentanomial) (bool, string) {
			for _, move := range [][2]int{{0, 4}, {1, 3}} {
				if p[move[0]] == 0 {
					continue
				}
				q := p
				q[move[0]]--
				q[move[1]]++
				if before, after := test.llr(p), test.llr(q); after < before-1e-9 {
					return false, fmt.Sprintf("moving a pair from %d to %d: %v to %v", move[0], move[1], before, after)
				}
			}
			return true, ""
		}},
		{"its sign is that of the mean score against the hypotheses' middle", func(test SPRT, p pentanomial) (bool, string) {
			if p.pairs() == 0 {
				return true, ""
			}
			var n, mean float64
			for i, c := range p {
				n += float64(c) + sprtPrior
				mean += (float64(c) + sprtPrior) * float64(i) / 4
			}
			mean /= n
			mid := (logisticScore(test.Elo0) + logisticScore(test.Elo1)) / 2
			llr := test.llr(p)
			return (llr > 0) == (mean > mid) || math.Abs(mean-mid) < 1e-12, fmt.Sprintf("llr %v, mean %v, middle %v", llr, mean, mid)
		}},
		{"swapping the players negates it", func(test SPRT, p pentanomial) (bool, string) {
			q := p
			slices.Reverse(q[:])
			swapped := SPRT{Elo0: -test.Elo1, Elo1: -test.Elo0, Alpha: test.Alpha, Beta: test.Beta}
			a, b := test.llr(p), swapped.llr(q)
			return math.Abs(a+b) <= 1e-9*max(1, math.Abs(a)), fmt.Sprintf("%v and %v swapped", a, b)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 20000 {
				test, p := randomTest(), randomCounts()
				if ok, why := tc.holds(test, p); !ok {
					t.Fatalf("%+v, %v: %s", test, p, why)
				}
			}
		})
	}
}

func TestParseSPRT(t *testing.T) {
	for _, tc := range []struct {
		text string
		want SPRT
		errs []string // the keys of the FieldErrors, in order
	}{
		{"elo0=0,elo1=10", SPRT{0, 10, 0.05, 0.05}, nil},
		{"elo1=5, elo0=-5,beta=0.1,alpha=0.01", SPRT{-5, 5, 0.01, 0.1}, nil},
		{"elo0=0,elo1=1e1,alpha=.2", SPRT{0, 10, 0.2, 0.05}, nil},
		{"elo0=10,elo1=10", SPRT{}, []string{"elo0"}},
		{"elo0=20,elo1=10,alpha=0.5,beta=0", SPRT{}, []string{"elo0", "alpha", "beta"}},
		{"elo0=0,elo1=10,alpha=-0.1", SPRT{}, []string{"alpha"}},
		{"elo0=0,elo1=10,gamma=1", SPRT{}, []string{`"gamma"`}},
		{"elo0=0,elo1=10,elo1=20", SPRT{}, []string{"elo1"}},
		{"elo0=0,elo1=ten", SPRT{}, []string{"elo1"}},
		{"elo0=0,elo1=NaN", SPRT{}, []string{"elo1"}},
		{"elo0=0,elo1=+Inf", SPRT{}, []string{"elo1"}},
		{"elo0=0", SPRT{}, []string{"elo1"}},
		{"elo0=0,,elo1=1", SPRT{}, []string{`""`}},
		{"", SPRT{}, []string{`""`, "elo0", "elo1"}},
	} {
		t.Run(tc.text, func(t *testing.T) {
			got, err := ParseSPRT(tc.text)
			var keys []string
			if err != nil {
				problems, ok := fieldProblems(err)
				if !ok {
					t.Fatalf("error %v is not made of FieldErrors", err)
				}
				for _, p := range problems {
					keys = append(keys, p.Key)
				}
			}
			if !slices.Equal(keys, tc.errs) {
				t.Fatalf("ParseSPRT(%q): error %v, want problems at %q", tc.text, err, tc.errs)
			}
			if err == nil && got != tc.want {
				t.Errorf("ParseSPRT(%q) = %+v, want %+v", tc.text, got, tc.want)
			}
		})
	}
}

// fieldProblems returns the FieldErrors err joins, and false if any part
// of it is another error.
func fieldProblems(err error) ([]*configs.FieldError, bool) {
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	var out []*configs.FieldError
	for _, e := range errs {
		var fe *configs.FieldError
		if !errors.As(e, &fe) {
			return nil, false
		}
		out = append(out, fe)
	}
	return out, true
}

// What ParseSPRT accepts it writes back as it read it, and whatever it is
// given, it returns a valid test or FieldErrors, never a panic.
func FuzzParseSPRT(f *testing.F) {
	for _, s := range []string{"elo0=0,elo1=10", "elo0=-5,elo1=5,alpha=0.01,beta=0.1", "elo1=1,elo0=0,elo0=0", "elo0=1e400,elo1=2", "x", "=,=", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		test, err := ParseSPRT(text)
		if err != nil {
			if _, ok := fieldProblems(err); !ok {
				t.Fatalf("ParseSPRT(%q): %v is not made of FieldErrors", text, err)
			}
			return
		}
		if err := test.validate(); err != nil {
			t.Fatalf("ParseSPRT(%q) = %+v, which is invalid: %v", text, test, err)
		}
		again, err := ParseSPRT(test.String())
		if err != nil || again != test {
			t.Fatalf("ParseSPRT(%q) = %+v, written %q, read back %+v, %v", text, test, test.String(), again, err)
		}
		if lower, upper := test.bounds(); !(lower < 0 && upper > 0) {
			t.Fatalf("%+v: bounds %v %v", test, lower, upper)
		}
	})
}

// scriptedEntrants are two players whose games end as a script says, A's
// result game by game ('W', 'D' or 'L'): the loser fails at its first
// move, and in a draw both play on to the move limit. Each player finds
// its game's number from its seed, as the arena derives seeds.
func scriptedEntrants(cfg ArenaConfig, script string) (a, b Entrant) {
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
func sprtConfig(games int) ArenaConfig {
	rules := env.DefaultRules()
	rules.MaxPlies = 6
	return ArenaConfig{Rules: rules, Games: games, Parallel: 1, OpeningPlies: 2, Seed: 9}
}

// serialDecision applies the test to the script's pairs one at a time:
// the decision and the pairs it took, or inconclusive after all.
func serialDecision(test SPRT, script string, pairs int) (string, int) {
	var counts pentanomial
	lower, upper := test.bounds()
	points := map[byte]int{'W': 2, 'D': 1, 'L': 0}
	for k := range pairs {
		counts[points[script[2*k%len(script)]]+points[script[(2*k+1)%len(script)]]]++
		switch llr := test.llr(counts); {
		case llr >= upper:
			return SPRTH1, k + 1
		case llr <= lower:
			return SPRTH0, k + 1
		}
	}
	return SPRTInconclusive, pairs
}

// PlaySPRT stops at the pair where the test, applied pair by pair in
// order, first crosses a bound, however many games run at once, and
// returns the games of the pairs counted; with the games run out first it
// is inconclusive.
func TestPlaySPRTDecides(t *testing.T) {
	for _, tc := range []struct {
		name   string
		test   SPRT
		script string
		games  int
		want   string
	}{
		{"A wins every game", SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.05}, "W", 60, SPRTH1},
		{"A wins most", SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.05}, "WDWWLWDW", 200, SPRTH1},
		{"A loses most", SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.1}, "LDLWLLDL", 200, SPRTH0},
		{"even against symmetric hypotheses", SPRT{Elo0: -20, Elo1: 20, Alpha: 0.05, Beta: 0.05}, "WL", 20, SPRTInconclusive},
		{"too few games", SPRT{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.05}, "WDDL", 8, SPRTInconclusive},
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
				recs, res, err := PlaySPRT(context.Background(), a, b, cfg, tc.test, func(r SPRTResult) { seen = append(seen, r.Pairs) })
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
					if want := pointsOf(tc.script[i%len(tc.script)]); r.Game != i || r.scoreOf("a") != want {
						t.Errorf("game %d: record of game %d, A scored %v, want %v", i, r.Game, r.scoreOf("a"), want)
					}
				}
				if !slices.IsSorted(seen) || len(seen) == 0 || seen[len(seen)-1] != res.Pairs {
					t.Errorf("the test's states counted %v pairs: want a rising count ending at %d", seen, res.Pairs)
				}
				lower, upper := tc.test.bounds()
				if res.Lower != lower || res.Upper != upper || res.Elo0 != tc.test.Elo0 || res.Elo1 != tc.test.Elo1 || res.Alpha != tc.test.Alpha || res.Beta != tc.test.Beta {
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
	test := SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.05}
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
	good := SPRT{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.05}
	for _, tc := range []struct {
		name  string
		test  SPRT
		games int
		want  string
	}{
		{"odd games", good, 7, "games is 7: want an even number"},
		{"elo0 above elo1", SPRT{Elo0: 10, Elo1: 0, Alpha: 0.05, Beta: 0.05}, 8, "elo0 is 10: want less than elo1 (0)"},
		{"beta too big", SPRT{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.5}, 8, "beta is 0.5: want more than 0 and less than 0.5"},
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
