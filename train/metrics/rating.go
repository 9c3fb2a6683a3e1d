package metrics

import (
	"fmt"
	"image/color"
	"maps"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/deathstacks/deathstacks/train/elo"
	"github.com/deathstacks/deathstacks/train/internal/chart"
)

// Rating is an evaluation's rating games: the network against the anchor
// (the fixed 0 of the scale, see eval.anchor) and against earlier
// snapshots of its run, which a network does not outgrow as it outgrows
// fixed baselines, and its rating from them.
type Rating struct {
	// Elo is the network's rating with its 95% interval [EloLow, EloHigh],
	// the anchor at 0: one fit ([Ratings]) over the rating games of the
	// run up to this iteration. Later games refine it: [Ratings] fits
	// them all again.
	Elo     float64 `json:"elo"`
	EloLow  float64 `json:"elo_low"`
	EloHigh float64 `json:"elo_high"`
	// Anchor is the result against the anchor.
	Anchor EvalResult `json:"anchor"`
	// Snapshots are the results against the run's earlier networks, by
	// iteration.
	Snapshots map[int]EvalResult `json:"snapshots,omitempty"`
}

// AnchorName is the anchor's name among the players of [Ratings].
const AnchorName = "anchor"

// NetworkName is the name of the network of an iteration among the
// players of [Ratings].
func NetworkName(iteration int) string { return fmt.Sprintf("iteration %d", iteration) }

// RatedIteration is an iteration's network rated on its run's scale.
type RatedIteration struct {
	Iteration int
	// ElapsedSec is the iteration's training time ([Iteration.TrainingSec]).
	ElapsedSec float64
	elo.Rating
}

// Ratings fits one Elo scale, the anchor at 0, over every rating game in
// ms, and returns the rating of each iteration that played some, in
// iteration order; nil when none did. The games are known by their sums
// (games and score per pair), which is all the fit needs: it scores a draw
// as half a win and half a loss.
func Ratings(ms []Iteration) ([]RatedIteration, error) {
	var results []elo.GameResult
	rated := map[string]Iteration{}
	add := func(player, opponent string, r EvalResult) error {
		if r.Games < 1 || !(r.Score >= 0 && r.Score <= 1) {
			return fmt.Errorf("rating games of %s against %s: %d games, score %v", player, opponent, r.Games, r.Score)
		}
		for range r.Games {
			results = append(results, elo.GameResult{A: player, B: opponent, Score: r.Score})
		}
		return nil
	}
	for _, m := range ms {
		if m.Rating == nil {
			continue
		}
		name := NetworkName(m.Iteration)
		rated[name] = m
		if err := add(name, AnchorName, m.Rating.Anchor); err != nil {
			return nil, err
		}
		for _, it := range slices.Sorted(maps.Keys(m.Rating.Snapshots)) {
			if err := add(name, NetworkName(it), m.Rating.Snapshots[it]); err != nil {
				return nil, err
			}
		}
	}
	if len(results) == 0 {
		return nil, nil
	}
	fit, err := elo.Fit(results, AnchorName)
	if err != nil {
		return nil, err
	}
	var out []RatedIteration
	for _, r := range fit {
		if m, ok := rated[r.Player]; ok {
			out = append(out, RatedIteration{Iteration: m.Iteration, ElapsedSec: m.TrainingSec(), Rating: r})
		}
	}
	slices.SortFunc(out, func(a, b RatedIteration) int { return a.Iteration - b.Iteration })
	return out, nil
}

// ratingPanels are the first row of EvalChart when some evaluation played
// rating games, else nil: the network's Elo on the run's scale (one fit
// over all the rating games, so every point is as well known as the run
// knows it now) against training time, and the score of the rating games
// against the anchor and against the earlier snapshots.
func ratingPanels(ms []Iteration) ([]*plot.Plot, error) {
	rated, err := Ratings(ms)
	if err != nil || len(rated) == 0 {
		return nil, err
	}
	last := rated[len(rated)-1].ElapsedSec
	unit, sec := "training time (minutes)", 60.0
	if last >= 2*3600 {
		unit, sec = "training time (hours)", 3600
	}
	eloPanel := chart.New(fmt.Sprintf("Elo on the run's scale (anchor = 0; 95%% interval; one fit of all %s)", ratingGames(ms)), "Elo")
	eloPanel.X.Label.Text = unit
	eloPanel.Y.Tick.Marker = plainTicks{}
	var pts chart.Points
	for _, r := range rated {
		pts = append(pts, chart.Point{X: r.ElapsedSec / sec, Y: r.Elo, Low: r.Low, High: r.High})
	}
	if _, err := chart.AddIntervals(eloPanel, "network", pts, 0); err != nil {
		return nil, fmt.Errorf("plot: Elo on the run's scale: %w", err)
	}
	zero := plotter.NewFunction(func(float64) float64 { return 0 })
	zero.Color, zero.Dashes = color.Gray{Y: 90}, []vg.Length{vg.Points(6), vg.Points(4)}
	eloPanel.Add(zero)
	eloPanel.Legend.Add("0: the anchor", zero)
	chart.MakeRoom(eloPanel, 2)

	scorePanel := panel("Score of the rating games", "points per game", true, ms,
		curve{"against the anchor", func(m Iteration) float64 {
			if m.Rating == nil {
				return nan
			}
			return m.Rating.Anchor.Score
		}},
		curve{"against earlier snapshots", func(m Iteration) float64 {
			if m.Rating == nil || len(m.Rating.Snapshots) == 0 {
				return nan
			}
			var points float64
			var games int
			for _, r := range m.Rating.Snapshots {
				points, games = points+r.Score*float64(r.Games), games+r.Games
			}
			return points / float64(games)
		}})
	fixUnitAxis(scorePanel)
	return []*plot.Plot{eloPanel, scorePanel}, nil
}

// ratingGames says how many rating games ms holds: "120 games".
func ratingGames(ms []Iteration) string {
	n := 0
	for _, m := range ms {
		if m.Rating == nil {
			continue
		}
		n += m.Rating.Anchor.Games
		for _, r := range m.Rating.Snapshots {
			n += r.Games
		}
	}
	if n == 1 {
		return "1 game"
	}
	return fmt.Sprintf("%d games", n)
}
