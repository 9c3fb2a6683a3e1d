package eval

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/deathstacks/deathstacks/configs"
)

// SPRT sets up a sequential probability ratio test between two players,
// A and B: H0 says A is Elo0 stronger than B, H1 that it is Elo1 stronger
// (logistic Elo), Alpha is the chance of accepting H1 when H0 holds and
// Beta that of accepting H0 when H1 holds. See [PlaySPRT].
type SPRT struct {
	Elo0  float64 `json:"elo0"`
	Elo1  float64 `json:"elo1"`
	Alpha float64 `json:"alpha"`
	Beta  float64 `json:"beta"`
}

// sprtDefaultError is Alpha and Beta when a test's text leaves them out.
const sprtDefaultError = 0.05

// The decisions of an SPRT, in [SPRTResult.Decision].
const (
	SPRTH1           = "H1 accepted"
	SPRTH0           = "H0 accepted"
	SPRTInconclusive = "inconclusive" // the games ran out first
)

// ParseSPRT reads a test written elo0=E0,elo1=E1[,alpha=A,beta=B], the keys
// in any order, alpha and beta 0.05 when left out, and checks it: elo0
// below elo1, both finite, alpha and beta in (0, 0.5). Every problem is a [*configs.FieldError] keyed by
// the key it is about (an unknown key, one given twice, a value that is no
// number, elo0 or elo1 missing), joined into one error.
func ParseSPRT(text string) (SPRT, error) {
	t := SPRT{Alpha: sprtDefaultError, Beta: sprtDefaultError}
	fields := map[string]*float64{"elo0": &t.Elo0, "elo1": &t.Elo1, "alpha": &t.Alpha, "beta": &t.Beta}
	seen := map[string]bool{}
	var ch configs.Checker
	for _, item := range strings.Split(text, ",") {
		key, value, ok := strings.Cut(item, "=")
		key = strings.TrimSpace(key)
		field, known := fields[key]
		switch {
		case !ok:
			ch.Check(false, strconv.Quote(item), "is not KEY=VALUE: want elo0=E0,elo1=E1[,alpha=A,beta=B]")
		case !known:
			ch.Check(false, strconv.Quote(key), "is not a key: want elo0, elo1, alpha or beta")
		case seen[key]:
			ch.Check(false, key, "is given twice")
		default:
			seen[key] = true
			v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
			ch.Check(err == nil && !math.IsNaN(v) && !math.IsInf(v, 0), key, "is %q: want a number", value)
			*field = v
		}
	}
	for _, key := range []string{"elo0", "elo1"} {
		ch.Check(seen[key], key, "is missing: want elo0=E0,elo1=E1[,alpha=A,beta=B]")
	}
	if ch.Len() > 0 {
		return SPRT{}, ch.Err()
	}
	return t, t.validate()
}

// validate reports every setting out of range, each as a
// [*configs.FieldError] keyed by its name (elo0, alpha, beta), joined
// into one error: elo0 must be less than elo1, both finite, and alpha and
// beta more than 0 and less than 0.5.
func (t SPRT) validate() error {
	var ch configs.Checker
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	ch.Check(finite(t.Elo0), "elo0", "is %v: want a finite number", t.Elo0)
	ch.Check(finite(t.Elo1), "elo1", "is %v: want a finite number", t.Elo1)
	ch.Check(!finite(t.Elo0) || !finite(t.Elo1) || t.Elo0 < t.Elo1, "elo0", "is %v: want less than elo1 (%v)", t.Elo0, t.Elo1)
	for _, p := range []struct {
		key string
		v   float64
	}{{"alpha", t.Alpha}, {"beta", t.Beta}} {
		ch.Check(p.v > 0 && p.v < 0.5, p.key, "is %v: want more than 0 and less than 0.5", p.v)
	}
	return ch.Err()
}

// String writes the test as [ParseSPRT] reads it, every key spelled out.
func (t SPRT) String() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return fmt.Sprintf("elo0=%s,elo1=%s,alpha=%s,beta=%s", f(t.Elo0), f(t.Elo1), f(t.Alpha), f(t.Beta))
}

// bounds returns the LLR at or below which the test accepts H0,
// ln(beta/(1-alpha)), and at or above which it accepts H1,
// ln((1-beta)/alpha).
func (t SPRT) bounds() (lower, upper float64) {
	return math.Log(t.Beta / (1 - t.Alpha)), math.Log((1 - t.Beta) / t.Alpha)
}

// pentanomial counts game pairs by the points A scored in them: element i
// holds the pairs of i/2 points (two losses, a loss and a draw, two draws
// or a win and a loss, a win and a draw, two wins).
type pentanomial [5]int

// pairs returns the number of pairs counted.
func (p pentanomial) pairs() int {
	n := 0
	for _, c := range p {
		n += c
	}
	return n
}

// sprtPrior is the number of virtual pairs added to each of the five
// outcomes before the LLR is taken. Without it a run of identical pairs
// (a strong player winning every one) has no variance, which leaves the
// normal approximation undefined (fastchess then returns 0, so the test
// never ends), and the first pairs of any test have a variance far too
// small, which would let one or two pairs decide it. Half a pair per
// outcome (2.5 pairs of mean score 0.5 in all) is the same kind of prior
// as [FitElo]'s virtual draw: it moves the LLR of 100 typical pairs by
// about 4%, of 400 by about 1%.
const sprtPrior = 0.5

// llr returns the log-likelihood ratio of H1 against H0 given the pairs
// counted: the normalized ("GSPRT") approximation over the pentanomial
// model that fishtest and fastchess use,
//
//	N (s1 - s0) (2 m - s0 - s1) / (2 v)
//
// where N is the number of pairs, m the mean and v the variance of a
// pair's score (its points over 2), and s0 and s1 the expected scores of
// Elo0 and Elo1 under the logistic model, 1/(1+10^(-elo/400)); each
// outcome counts [sprtPrior] pairs more than it has. It is 0 for no pairs.
func (t SPRT) llr(p pentanomial) float64 {
	if p.pairs() == 0 {
		return 0
	}
	var n, mean float64
	var counts [5]float64
	for i, c := range p {
		counts[i] = float64(c) + sprtPrior
		n += counts[i]
		mean += counts[i] * float64(i) / 4
	}
	mean /= n
	var variance float64
	for i, c := range counts {
		d := float64(i)/4 - mean
		variance += c * d * d
	}
	variance /= n
	s0, s1 := logisticScore(t.Elo0), logisticScore(t.Elo1)
	return n * (s1 - s0) * (2*mean - s0 - s1) / (2 * variance)
}

// logisticScore is the expected score of a player elo stronger than its
// opponent under the logistic model.
func logisticScore(elo float64) float64 { return 1 / (1 + math.Pow(10, -elo/400)) }

// SPRTResult is the state of a test, or its outcome: results.json's
// "sprt".
type SPRTResult struct {
	Elo0  float64 `json:"elo0"`
	Elo1  float64 `json:"elo1"`
	Alpha float64 `json:"alpha"`
	Beta  float64 `json:"beta"`
	// LLR is the log-likelihood ratio over the Pairs counted; Lower and
	// Upper are the test's bounds.
	LLR   float64 `json:"llr"`
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
	// Decision is SPRTH1, SPRTH0 or SPRTInconclusive; while the test runs,
	// SPRTInconclusive.
	Decision string `json:"decision"`
	Pairs    int    `json:"pairs"`
}

// Line is the line that ends an SPRT's output: "sprt: H1 accepted (llr
// 2.97, bounds -2.94 2.94, 134 pairs, elo0 0 elo1 10)".
func (r SPRTResult) Line() string {
	return fmt.Sprintf("sprt: %s (llr %.2f, bounds %.2f %.2f, %d pairs, elo0 %g elo1 %g)",
		r.Decision, r.LLR, r.Lower, r.Upper, r.Pairs, r.Elo0, r.Elo1)
}

// Progress is the test's state for a progress line: "llr 1.23 (-2.94,
// 2.94), 40 pairs".
func (r SPRTResult) Progress() string {
	return fmt.Sprintf("llr %.2f (%.2f, %.2f), %d pairs", r.LLR, r.Lower, r.Upper, r.Pairs)
}

// sprtState runs a test over the pairs of a match in order: pair k is
// games 2k (A Red) and 2k+1 (A Blue).
type sprtState struct {
	test   SPRT
	a      string // player A's name
	counts pentanomial
	result SPRTResult
}

func newSPRTState(test SPRT, a string) *sprtState {
	lower, upper := test.bounds()
	return &sprtState{test: test, a: a, result: SPRTResult{
		Elo0: test.Elo0, Elo1: test.Elo1, Alpha: test.Alpha, Beta: test.Beta,
		Lower: lower, Upper: upper, Decision: SPRTInconclusive,
	}}
}

// decided reports whether the test has accepted a hypothesis.
func (s *sprtState) decided() bool { return s.result.Decision != SPRTInconclusive }

// advance counts the pairs after those counted whose games are both done,
// in order, until one is missing or the test decides; it reports whether
// it counted any.
func (s *sprtState) advance(records []GameRecord, done []bool) bool {
	counted := false
	for k := s.result.Pairs; !s.decided() && 2*k+1 < len(done) && done[2*k] && done[2*k+1]; k++ {
		points := 0.0
		for _, r := range records[2*k : 2*k+2] {
			points += r.scoreOf(s.a)
		}
		s.counts[int(math.Round(2*points))]++
		s.result.Pairs++
		s.result.LLR = s.test.llr(s.counts)
		switch {
		case s.result.LLR >= s.result.Upper:
			s.result.Decision = SPRTH1
		case s.result.LLR <= s.result.Lower:
			s.result.Decision = SPRTH0
		}
		counted = true
	}
	return counted
}

// PlaySPRT plays game pairs between a and b, each pair from one opening
// with a as Red in its first game (the games of [PlayMatch]), until test
// accepts a hypothesis about how much stronger a is, or cfg.Games (an even
// number) are played. The test counts the pairs in order of their number,
// so that however many games run at once and whatever cfg.Played holds,
// it decides on the same pairs as one game at a time would; games of later
// pairs are dropped once it has decided. onTest, if not nil, is called
// with the test's state each time it counts pairs, one call at a time.
// PlaySPRT returns the records of the pairs counted, in game order, and
// the test's outcome; on an error (see [RoundRobin]) the records are those
// of every game finished.
func PlaySPRT(ctx context.Context, a, b Entrant, cfg ArenaConfig, test SPRT, onTest func(SPRTResult)) ([]GameRecord, SPRTResult, error) {
	if err := test.validate(); err != nil {
		return nil, SPRTResult{}, fmt.Errorf("sprt: %w", err)
	}
	if cfg.Games%2 != 0 {
		return nil, SPRTResult{}, fmt.Errorf("sprt: %w", configs.Errorf("games", "is %d: want an even number, for pairs of games", cfg.Games))
	}
	jobs, records, done, err := prepare([]Entrant{a, b}, cfg)
	if err != nil {
		return nil, SPRTResult{}, err
	}
	state := newSPRTState(test, a.Name)
	stop := func(records []GameRecord, done []bool) bool {
		if state.advance(records, done) && onTest != nil {
			onTest(state.result)
		}
		return state.decided()
	}
	finished, err := runGames(ctx, jobs, records, done, cfg, stop)
	if err != nil {
		return finished, state.result, err
	}
	counted := slices.DeleteFunc(finished, func(r GameRecord) bool { return r.Game >= 2*state.result.Pairs })
	return counted, state.result, nil
}
