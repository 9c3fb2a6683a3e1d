package elo

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/deathstacks/deathstacks/configs"
)

// SPRT sets up a sequential probability ratio test between two players,
// A and B: H0 says A is Elo0 stronger than B, H1 that it is Elo1 stronger
// (logistic Elo), Alpha is the chance of accepting H1 when H0 holds and
// Beta that of accepting H0 when H1 holds. [SPRT.Result] applies it to
// pairs of games; package arena plays them.
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
	return t, t.Validate()
}

// Validate reports every setting out of range, each as a
// [*configs.FieldError] keyed by its name (elo0, alpha, beta), joined
// into one error: elo0 must be less than elo1, both finite, and alpha and
// beta more than 0 and less than 0.5.
func (t SPRT) Validate() error {
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

// Pentanomial counts game pairs by the points A scored in them: element i
// holds the pairs of i/2 points (two losses, a loss and a draw, two draws
// or a win and a loss, a win and a draw, two wins).
type Pentanomial [5]int

// Pairs returns the number of pairs counted.
func (p Pentanomial) Pairs() int {
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
// as [Fit]'s virtual draw: it moves the LLR of 100 typical pairs by
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
func (t SPRT) llr(p Pentanomial) float64 {
	if p.Pairs() == 0 {
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

// Result returns the state of the test after the pairs counted in p,
// each count 0 or more: the LLR, the bounds and the decision, which is
// SPRTH1 at or above the upper bound, SPRTH0 at or below the lower one,
// else SPRTInconclusive. A test run over pairs in order stops at the first
// decision.
func (t SPRT) Result(p Pentanomial) SPRTResult {
	lower, upper := t.bounds()
	r := SPRTResult{
		Elo0: t.Elo0, Elo1: t.Elo1, Alpha: t.Alpha, Beta: t.Beta,
		LLR: t.llr(p), Lower: lower, Upper: upper, Decision: SPRTInconclusive, Pairs: p.Pairs(),
	}
	switch {
	case r.LLR >= r.Upper:
		r.Decision = SPRTH1
	case r.LLR <= r.Lower:
		r.Decision = SPRTH0
	}
	return r
}
