package elo

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/deathstacks/deathstacks/configs"
)

// The LLR against values worked out by hand (the first) and with a
// calculator, from the formula of SPRT.llr with half a virtual pair in
// each outcome.
func TestSPRTLLR(t *testing.T) {
	for _, tc := range []struct {
		name       string
		elo0, elo1 float64
		counts     Pentanomial
		want       float64
	}{
		// Counts 0.5 0.5 0.5 0.5 6.5 (n 8.5): mean 7.25/8.5 = 0.852941,
		// E[x²] 6.9375/8.5 = 0.816176, variance 0.088668; s0 0.5, s1
		// 0.640065: 8.5 × 0.140065 × (1.705882 − 1.140065) / 0.177336.
		{"six pairs won twice", 0, 100, Pentanomial{0, 0, 0, 0, 6}, 3.798646},
		{"no pairs", 0, 10, Pentanomial{}, 0},
		{"draws against symmetric hypotheses", -10, 10, Pentanomial{0, 0, 5, 0, 0}, 0},
		{"100 pairs ahead", 0, 10, Pentanomial{1, 11, 47, 25, 16}, 2.687175},
		{"400 pairs ahead", 0, 10, Pentanomial{4, 44, 188, 100, 64}, 11.069849},
		{"100 pairs behind", 0, 10, Pentanomial{16, 25, 47, 11, 1}, -3.073307},
		{"even, H0 at 0", 0, 5, Pentanomial{10, 20, 40, 20, 10}, -0.034810},
		{"six pairs lost twice", 0, 100, Pentanomial{6, 0, 0, 0, 0}, -5.679314},
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
	randomCounts := func() Pentanomial {
		var p Pentanomial
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
		holds func(test SPRT, p Pentanomial) (bool, string)
	}{
		{"mirrored results raise it", func(test SPRT, p Pentanomial) (bool, string) {
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
		{"its sign is that of the mean score against the hypotheses' middle", func(test SPRT, p Pentanomial) (bool, string) {
			if p.Pairs() == 0 {
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
		{"swapping the players negates it", func(test SPRT, p Pentanomial) (bool, string) {
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
		if err := test.Validate(); err != nil {
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

// Result carries the test and the pairs counted, with the decision of the
// LLR against the bounds.
func TestSPRTResult(t *testing.T) {
	test := SPRT{Elo0: 0, Elo1: 100, Alpha: 0.05, Beta: 0.05}
	lower, upper := test.bounds()
	for _, tc := range []struct {
		name   string
		counts Pentanomial
		want   string
	}{
		{"no pairs", Pentanomial{}, SPRTInconclusive},
		{"two pairs won twice", Pentanomial{0, 0, 0, 0, 2}, SPRTInconclusive},
		{"six pairs won twice", Pentanomial{0, 0, 0, 0, 6}, SPRTH1},
		{"six pairs lost twice", Pentanomial{6, 0, 0, 0, 0}, SPRTH0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := SPRTResult{Elo0: 0, Elo1: 100, Alpha: 0.05, Beta: 0.05, LLR: test.llr(tc.counts),
				Lower: lower, Upper: upper, Decision: tc.want, Pairs: tc.counts.Pairs()}
			if got := test.Result(tc.counts); got != want {
				t.Errorf("Result(%v) = %+v, want %+v", tc.counts, got, want)
			}
		})
	}
}
