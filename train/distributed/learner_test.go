package distributed

import (
	"testing"

	"github.com/deathstacks/deathstacks/train/remotegames"
)

func TestSpread(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []float64
		want   remotegames.Spread
	}{
		{"none", nil, remotegames.Spread{}},
		{"one", []float64{7}, remotegames.Spread{Total: 7, Min: 7, P50: 7, Max: 7}},
		{"two: the median is the lower", []float64{9, 3}, remotegames.Spread{Total: 12, Min: 3, P50: 3, Max: 9}},
		{"five, unsorted", []float64{5, 1, 4, 2, 3}, remotegames.Spread{Total: 15, Min: 1, P50: 3, Max: 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := spread(tc.values); got != tc.want {
				t.Errorf("spread(%v) = %+v, want %+v", tc.values, got, tc.want)
			}
		})
	}
}
