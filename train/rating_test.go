package train

import (
	"slices"
	"testing"

	"github.com/deathstacks/deathstacks/train/metrics"
)

// ratedAt is a metrics log whose iterations in rated played rating games
// (an even score against the anchor), among others that did not.
func ratedAt(last int, rated ...int) []metrics.Iteration {
	var ms []metrics.Iteration
	for it := 1; it <= last; it++ {
		m := metrics.Iteration{Iteration: it}
		if slices.Contains(rated, it) {
			m.Rating = &metrics.Rating{Anchor: metrics.EvalResult{Games: 10, Score: 0.5}}
		}
		ms = append(ms, m)
	}
	return ms
}

func TestRatingSnapshots(t *testing.T) {
	tests := []struct {
		name string
		ms   []metrics.Iteration
		it   int
		n    int
		want []int
	}{
		{"first evaluation", ratedAt(7), 8, 1, nil},
		{"none asked", ratedAt(31, 8, 16, 24), 32, 0, nil},
		{"the one before", ratedAt(15, 8), 16, 1, []int{8}},
		{"half way", ratedAt(63, 8, 16, 24, 32, 40, 48, 56), 64, 1, []int{32}},
		{"nearest half way", ratedAt(39, 8, 16, 24, 32), 40, 1, []int{16}},
		{"thirds", ratedAt(63, 8, 16, 24, 32, 40, 48, 56), 64, 2, []int{24, 40}},
		{"more asked than rated", ratedAt(23, 8, 16), 24, 3, []int{8, 16}},
		{"later lines are not earlier", ratedAt(40, 8, 16, 24, 32, 40), 24, 1, []int{8}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ratingSnapshots(tc.ms, tc.it, tc.n); !slices.Equal(got, tc.want) {
				t.Errorf("ratingSnapshots(%d, %d) = %v, want %v", tc.it, tc.n, got, tc.want)
			}
		})
	}
}

// TestRateIteration checks an evaluation's bookkeeping with made-up
// results: where each result goes, and the Elo from all games so far.
func TestRateIteration(t *testing.T) {
	earlier := ratedAt(15, 8) // iteration 8 drew even with the anchor
	anchor := metrics.EvalResult{Games: 10, Score: 0.7}
	snapshot := metrics.EvalResult{Games: 10, Score: 0.7}
	r, err := rateIteration(earlier, 16, []metrics.EvalResult{anchor, snapshot}, []int{8})
	if err != nil {
		t.Fatal(err)
	}
	if r.Anchor != anchor || len(r.Snapshots) != 1 || r.Snapshots[8] != snapshot {
		t.Errorf("rating %+v: want the anchor's result and iteration 8's", r)
	}
	// 0.7 against both, one of them even with the anchor: about +147
	// (less by the prior's pull towards 0).
	if !(r.Elo > 100 && r.Elo < 147) || !(r.EloLow < r.Elo && r.Elo < r.EloHigh) {
		t.Errorf("Elo %+.0f [%+.0f, %+.0f]: want about +140 inside its interval", r.Elo, r.EloLow, r.EloHigh)
	}
	alone, err := rateIteration(nil, 8, []metrics.EvalResult{anchor}, nil)
	if err != nil || alone.Snapshots != nil || !(alone.Elo > 0) {
		t.Errorf("first rating %+v, %v: want the anchor's games alone", alone, err)
	}
	if _, err := rateIteration(earlier, 16, []metrics.EvalResult{anchor}, []int{8}); err == nil {
		t.Error("a snapshot without its result: no error")
	}
}
