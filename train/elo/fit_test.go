package elo

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// games returns n results of a against b in which a scores about share:
// round(share*n) wins, the rest losses.
func games(a, b string, n int, share float64) []GameResult {
	wins := int(math.Round(share * float64(n)))
	out := make([]GameResult, n)
	for i := range out {
		out[i] = GameResult{A: a, B: b}
		if i < wins {
			out[i].Score = 1
		}
	}
	return out
}

func ratingOf(t *testing.T, rs []Rating, name string) Rating {
	t.Helper()
	for _, r := range rs {
		if r.Player == name {
			return r
		}
	}
	t.Fatalf("no rating for %s in %+v", name, rs)
	return Rating{}
}

func fit(t *testing.T, results []GameResult, anchor string) []Rating {
	t.Helper()
	rs, err := Fit(results, anchor)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestFitKnownScores(t *testing.T) {
	// 400*log10(0.76/0.24) = 200.2: a 76% score is +200 Elo.
	tests := []struct {
		name      string
		n         int
		share     float64
		want, tol float64
	}{
		{"76% of 1000", 1000, 0.76, 200, 1.5},
		{"76% of 100", 100, 0.76, 200, 3},
		{"24% of 1000", 1000, 0.24, -200, 1.5},
		{"50% of 200", 200, 0.5, 0, 1e-6},
		{"91% of 1000", 1000, 0.91, 400, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ratingOf(t, fit(t, games("net", "random", tc.n, tc.share), "random"), "net")
			if math.Abs(r.Elo-tc.want) > tc.tol {
				t.Errorf("Elo = %.2f, want %v ± %v", r.Elo, tc.want, tc.tol)
			}
			if !(r.Low < r.Elo && r.Elo < r.High) {
				t.Errorf("interval [%v, %v] does not hold %v", r.Low, r.High, r.Elo)
			}
			if r.Games != tc.n {
				t.Errorf("Games = %d, want %d (the prior's virtual games are not games)", r.Games, tc.n)
			}
		})
	}
}

func TestFitDrawsAreHalfPoints(t *testing.T) {
	// 52 wins, 48 draws, 0 losses is a 76% score, like 76 wins and 24 losses.
	var rs []GameResult
	for i := range 100 {
		score := 1.0
		if i >= 52 {
			score = 0.5
		}
		rs = append(rs, GameResult{A: "net", B: "random", Score: score})
	}
	withDraws := ratingOf(t, fit(t, rs, "random"), "net")
	without := ratingOf(t, fit(t, games("net", "random", 100, 0.76), "random"), "net")
	if math.Abs(withDraws.Elo-without.Elo) > 1e-6 || withDraws.Points != 76 {
		t.Errorf("with draws %v (%v points), without %v", withDraws.Elo, withDraws.Points, without.Elo)
	}
}

func TestFitSymmetric(t *testing.T) {
	// a beats the anchor as often as the anchor beats b, and a and b meet
	// once each way with a split: the ratings mirror each other.
	results := append(games("a", "anchor", 200, 0.7), games("anchor", "b", 200, 0.7)...)
	results = append(results, GameResult{A: "a", B: "b", Score: 1}, GameResult{A: "b", B: "a", Score: 1})
	rs := fit(t, results, "anchor")
	a, b := ratingOf(t, rs, "a"), ratingOf(t, rs, "b")
	if math.Abs(a.Elo+b.Elo) > 1e-6 || math.Abs((a.High-a.Low)-(b.High-b.Low)) > 1e-6 {
		t.Errorf("a = %+v, b = %+v: want mirror images", a, b)
	}
	if rs[0].Player != "a" || rs[2].Player != "b" {
		t.Errorf("not sorted best first: %v %v %v", rs[0].Player, rs[1].Player, rs[2].Player)
	}
	if anchor := ratingOf(t, rs, "anchor"); anchor.Elo != 0 || anchor.Low != 0 || anchor.High != 0 {
		t.Errorf("anchor = %+v, want 0 with no interval", anchor)
	}
}

func TestFitChain(t *testing.T) {
	// b is 200 above a, which is 200 above the anchor.
	results := append(games("a", "random", 2000, 0.76), games("b", "a", 2000, 0.76)...)
	rs := fit(t, results, "random")
	if a := ratingOf(t, rs, "a"); math.Abs(a.Elo-200) > 3 {
		t.Errorf("a = %.1f, want 200", a.Elo)
	}
	if b := ratingOf(t, rs, "b"); math.Abs(b.Elo-400) > 5 {
		t.Errorf("b = %.1f, want 400", b.Elo)
	}
}

func TestFitIntervalShrinks(t *testing.T) {
	prev := math.Inf(1)
	for _, n := range []int{25, 100, 400, 1600} {
		r := ratingOf(t, fit(t, games("net", "random", n, 0.76), "random"), "net")
		width := r.High - r.Low
		if width >= prev {
			t.Errorf("%d games: interval %.1f wide, not narrower than %.1f", n, width, prev)
		}
		prev = width
	}
	// With two players the standard error is 1/sqrt(n p (1-p)) in natural
	// units, n counting the prior's virtual game.
	want := 2 * 1.96 * eloScale / math.Sqrt(1601*0.76*0.24)
	if math.Abs(prev-want)/want > 0.02 {
		t.Errorf("1600 games: interval %.2f wide, want %.2f", prev, want)
	}
}

func TestFitAllWinsIsFinite(t *testing.T) {
	for _, n := range []int{1, 10, 1000} {
		rs := fit(t, games("perfect", "random", n, 1), "random")
		r := ratingOf(t, rs, "perfect")
		for _, v := range []float64{r.Elo, r.Low, r.High} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%d wins: %+v is not finite", n, r)
			}
		}
		if r.Elo <= 0 {
			t.Errorf("%d wins: Elo %v, want above 0", n, r.Elo)
		}
		loser := ratingOf(t, fit(t, games("hopeless", "random", n, 0), "random"), "hopeless")
		if math.Abs(loser.Elo+r.Elo) > 1e-6 {
			t.Errorf("%d losses: Elo %v, want %v", n, loser.Elo, -r.Elo)
		}
	}
}

func TestFitDisconnectedPlayerStaysFinite(t *testing.T) {
	// c and d never meet the anchor or a: only the prior links them.
	results := append(games("a", "anchor", 50, 0.6), games("c", "d", 50, 0.8)...)
	rs := fit(t, results, "anchor")
	c, d := ratingOf(t, rs, "c"), ratingOf(t, rs, "d")
	if !(c.Elo > d.Elo) || math.IsInf(c.High, 0) {
		t.Errorf("c = %+v, d = %+v", c, d)
	}
}

func TestFitErrors(t *testing.T) {
	tests := []struct {
		name    string
		results []GameResult
		want    string
	}{
		{"no games", nil, "played no game"},
		{"anchor absent", games("a", "b", 3, 0.5), `anchor "random" played no game`},
		{"self play", []GameResult{{A: "a", B: "a", Score: 1}}, "plays itself"},
		{"no name", []GameResult{{A: "", B: "random", Score: 1}}, "without a name"},
		{"bad score", []GameResult{{A: "a", B: "random", Score: 2}}, "score 2"},
		{"NaN score", []GameResult{{A: "a", B: "random", Score: math.NaN()}}, "score NaN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Fit(tc.results, "random")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func ExampleFit() {
	var results []GameResult
	for i := range 100 { // greedy scores 76% against random
		score := 0.0
		if i < 76 {
			score = 1
		}
		results = append(results, GameResult{A: "greedy", B: "random", Score: score})
	}
	ratings, err := Fit(results, "random")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range ratings {
		fmt.Printf("%-7s %4.0f [%4.0f, %4.0f] %v/%d\n", r.Player, r.Elo, r.Low, r.High, r.Points, r.Games)
	}
	// Output:
	// greedy   198 [ 119,  277] 76/100
	// random     0 [   0,    0] 24/100
}
