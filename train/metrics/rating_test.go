package metrics

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/train/elo"
	"github.com/deathstacks/deathstacks/train/internal/charttest"
)

// ratedMetrics makes n iterations whose every fourth evaluates with rating
// games, 20 against the anchor and from the second on 20 against a
// snapshot (220 games in 24 iterations): the network gains 100 Elo an
// evaluation, starting 600 below the anchor.
func ratedMetrics(n int) []Iteration {
	ms := runMetrics(n)
	expected := func(d float64) float64 { return 1 / (1 + math.Pow(10, -d/400)) }
	strength := func(it int) float64 { return -600 + 100*float64(it/4) }
	var rated []int
	for i := range ms {
		it := ms[i].Iteration
		if it%4 != 0 {
			continue
		}
		r := &Rating{Anchor: EvalResult{Games: 20, Score: math.Round(20*expected(strength(it))) / 20}}
		if len(rated) > 0 {
			k := rated[len(rated)/2]
			r.Snapshots = map[int]EvalResult{k: {Games: 20, Score: math.Round(20*expected(strength(it)-strength(k))) / 20}}
		}
		ms[i].Rating = r
		rated = append(rated, it)
	}
	return ms
}

func TestRatings(t *testing.T) {
	ms := ratedMetrics(24)
	rated, err := Ratings(ms)
	if err != nil {
		t.Fatal(err)
	}
	if len(rated) != 6 {
		t.Fatalf("%d rated iterations, want 6: %+v", len(rated), rated)
	}
	for i, r := range rated {
		if r.Iteration != 4*(i+1) || r.ElapsedSec != 80*float64(r.Iteration) || !(r.Low < r.Elo && r.Elo < r.High) {
			t.Errorf("rating %d: %+v", i, r)
		}
		if i > 0 && r.Elo <= rated[i-1].Elo {
			t.Errorf("ratings %+v: want them to rise as the network does", rated)
		}
	}
	// The sums of each pair fit as the games themselves do.
	var games []elo.GameResult
	for _, m := range ms {
		if m.Rating == nil {
			continue
		}
		add := func(opponent string, r EvalResult) {
			points := int(math.Round(r.Score * float64(r.Games)))
			for g := range r.Games {
				games = append(games, elo.GameResult{A: NetworkName(m.Iteration), B: opponent, Score: float64(min(1, max(0, points-g)))})
			}
		}
		add(AnchorName, m.Rating.Anchor)
		for k, r := range m.Rating.Snapshots {
			add(NetworkName(k), r)
		}
	}
	direct, err := elo.Fit(games, AnchorName)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range direct {
		for _, r := range rated {
			if NetworkName(r.Iteration) == d.Player && (math.Abs(r.Elo-d.Elo) > 1e-6 || math.Abs(r.High-d.High) > 1e-6) {
				t.Errorf("%s: %+v from the sums, %+v from the games", d.Player, r.Rating, d)
			}
		}
	}
}

func TestRatingsNone(t *testing.T) {
	rated, err := Ratings(runMetrics(6))
	if err != nil || rated != nil {
		t.Errorf("Ratings without rating games: %v, %v: want nil, nil", rated, err)
	}
}

func TestRatingsErrors(t *testing.T) {
	tests := []struct {
		name string
		r    Rating
		want string
	}{
		{"no games", Rating{Anchor: EvalResult{Games: 0, Score: 0.5}}, "iteration 3 against anchor: 0 games"},
		{"score above 1", Rating{Anchor: EvalResult{Games: 2, Score: 1.5}}, "score 1.5"},
		{"NaN score", Rating{Anchor: EvalResult{Games: 2, Score: 0.5}, Snapshots: map[int]EvalResult{1: {Games: 2, Score: math.NaN()}}}, "against iteration 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Ratings([]Iteration{{Iteration: 3, Rating: &tc.r}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestRatingPanels(t *testing.T) {
	ms := ratedMetrics(24)
	panels, err := evalPanels(ms)
	if err != nil {
		t.Fatal(err)
	}
	if len(panels) < 2 || len(panels[0]) != 2 {
		t.Fatalf("%d rows of panels, want the rating's first", len(panels))
	}
	eloPanel, score := panels[0][0], panels[0][1]
	if !strings.Contains(eloPanel.Title.Text, "anchor = 0") || !strings.Contains(eloPanel.Title.Text, "220 games") ||
		eloPanel.X.Label.Text != "training time (minutes)" {
		t.Errorf("Elo panel %q against %q", eloPanel.Title.Text, eloPanel.X.Label.Text)
	}
	// The last network rates about +0 (600 below, 6 evaluations of +100).
	if eloPanel.Y.Max < -100 || eloPanel.Y.Min > -500 {
		t.Errorf("Elo axis %v..%v: want the ratings' range, about -500 to 0", eloPanel.Y.Min, eloPanel.Y.Max)
	}
	if score.Y.Min != 0 || score.Y.Max != 1 {
		t.Errorf("%q: y axis %v..%v, want 0..1", score.Title.Text, score.Y.Min, score.Y.Max)
	}
	// Rating games alone, without baselines, still draw eval.png.
	for i := range ms {
		ms[i].Eval = nil
	}
	dir := t.TempDir()
	if err := Plot(dir, ms); err != nil {
		t.Fatal(err)
	}
	charttest.CheckPNG(t, filepath.Join(dir, EvalChart))
}
