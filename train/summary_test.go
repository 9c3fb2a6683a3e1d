package train

import (
	"strings"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

func TestSummaryLineGames(t *testing.T) {
	local := metrics.Iteration{Iteration: 3, SelfPlayGames: 32, MeanGameLength: 81, RedWinShare: 0.25, BlueWinShare: 0.25, PositionsPerSec: 200}
	both := local
	both.Actors, both.RemoteGames, both.RemoteMeanGameLength, both.RemoteDecidedShare = 2, 50, 75, 0.36
	remote := both
	remote.SelfPlayGames, remote.MeanGameLength, remote.RedWinShare, remote.BlueWinShare, remote.PositionsPerSec = 0, 0, 0, 0, 0
	pcr := runconfig.Defaults()
	pcr.SelfPlay.FastSimulations = 16
	fast := local
	fast.SelfPlaySec, fast.PositionsPerSec = 40.5, 16 // 32 games of 81 plies in 40.5 s: 64 plies/s
	for _, tc := range []struct {
		name     string
		m        metrics.Iteration
		cfg      *runconfig.Config
		want     []string
		wantNone string
	}{
		{"playout cap randomization", fast, &pcr, []string{"50% decided, 16 positions/s recorded of 64 plies/s;"}, "remote"},
		{"one machine", local, nil, []string{"iteration 3: 32 games, 81 plies on average, 50% decided, 200 positions/s;"}, "remote"},
		{"local and remote", both, nil, []string{"32 games + 50 from 2 actors", ", 81 plies on average, 50% decided, 200 positions/s, remote 75 plies on average, 36% decided;"}, "0 plies"},
		{"pure learner", remote, nil, []string{"0 games + 50 from 2 actors (0 positions/s), remote 75 plies on average, 36% decided;"}, "0 plies on average"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := runconfig.Defaults()
			if tc.cfg != nil {
				cfg = *tc.cfg
			}
			line := unwrapSummary(summaryLine(tc.m, cfg))
			for _, w := range tc.want {
				if !strings.Contains(line, w) {
					t.Errorf("%q: want %q in it", line, w)
				}
			}
			if strings.Contains(line, tc.wantNone) {
				t.Errorf("%q: want no %q in it", line, tc.wantNone)
			}
		})
	}
}

// unwrapSummary joins the lines of a wrapped summary back into one.
func unwrapSummary(text string) string { return strings.ReplaceAll(text, "\n    ", " ") }

// The widest realistic summary, a long run's with actors, playout cap
// randomization, large figures, four baselines and the rating on the
// anchor's scale, wraps into lines of at most 120 columns, each broken at
// a separator, never inside a figure; a short one stays one line.
func TestSummaryLineWidth(t *testing.T) {
	cfg := runconfig.Defaults()
	cfg.SelfPlay.FastSimulations = 100
	cfg.Eval.Baselines = []string{"random", "greedy", "alphabeta:depth=4", "alphabeta:time=200ms"}
	wide := metrics.Iteration{
		Iteration: 12345, SelfPlayGames: 1024, MeanGameLength: 123, RedWinShare: 0.5, BlueWinShare: 0.5,
		PositionsPerSec: 12345, SelfPlaySec: 10,
		Actors: 16, RemoteGames: 4096, ActorPositionsPerSec: 123456, RemoteMeanGameLength: 123, RemoteDecidedShare: 1,
		TrainSteps: 1000, PolicyLoss: 12.345, ValueLoss: 1.234,
		Eval: map[string]metrics.EvalResult{
			"random": {Score: 1, Elo: 1234}, "greedy": {Score: 1, Elo: 1234},
			"alphabeta:depth=4": {Score: 0.99, Elo: -1234}, "alphabeta:time=200ms": {Score: 0.01, Elo: -1234},
		},
		Rating:     &metrics.Rating{Elo: -1234, EloLow: -1456, EloHigh: -1012},
		ElapsedSec: 999 * 3600,
	}
	text := summaryLine(wide, cfg)
	lines := strings.Split(text, "\n")
	if len(lines) < 2 {
		t.Errorf("a summary of %d columns in one line:\n%s", len(text), text)
	}
	for i, l := range lines {
		if len(l) > summaryWidth {
			t.Errorf("line %d is %d columns, more than %d:\n%s", i+1, len(l), summaryWidth, l)
		}
		if i < len(lines)-1 && !strings.HasSuffix(l, ",") && !strings.HasSuffix(l, ";") {
			t.Errorf("line %d does not end at a separator: %q", i+1, l)
		}
		if i > 0 && !strings.HasPrefix(l, "    ") {
			t.Errorf("line %d is not indented: %q", i+1, l)
		}
	}
	for _, w := range []string{"iteration 12345: 1024 games + 4096 from 16 actors (123456 positions/s)", "12345 positions/s recorded of 12595 plies/s",
		"vs alphabeta:time=200ms 1%; Elo -1234 ±222 (anchor 0); 999h elapsed of 55m, 0s left"} {
		if !strings.Contains(unwrapSummary(text), w) {
			t.Errorf("%q lacks %q", text, w)
		}
	}
	short := metrics.Iteration{Iteration: 3, SelfPlayGames: 32, MeanGameLength: 81, PositionsPerSec: 200, ElapsedSec: 60}
	if line := summaryLine(short, runconfig.Defaults()); strings.Contains(line, "\n") {
		t.Errorf("a short summary wrapped: %q", line)
	}
}

// The summary says how far the run is towards its target and its time
// limit, and gives one Elo figure: on the anchor's scale when the
// evaluation rated the network against the anchor, else against each
// baseline.
func TestSummaryLineTarget(t *testing.T) {
	rated := metrics.Iteration{Iteration: 3, SelfPlayGames: 4, ElapsedSec: 723,
		Eval:   map[string]metrics.EvalResult{"random": {Score: 0.5, Elo: 0}},
		Rating: &metrics.Rating{Elo: -120, EloLow: -537, EloHigh: 297}}
	unrated := rated
	unrated.Rating = nil
	for _, tc := range []struct {
		name           string
		iterations     int
		limit          time.Duration
		m              metrics.Iteration
		want, wantNone string
	}{
		{"time limit", 0, 55 * time.Minute, rated, "iteration 3: 4 games", "of 0"},
		{"time left", 0, 55 * time.Minute, rated, "; 12m3s elapsed of 55m, 42m57s left", "elapsed;"},
		{"target", 10, 0, rated, "iteration 3 of 10: 4 games", "left"},
		{"no limit", 10, 0, rated, "; 12m3s elapsed", "elapsed of"},
		{"both", 10, 90 * time.Minute, rated, "iteration 3 of 10: 4 games", ""},
		{"one scale rated", 10, 0, rated, "vs random 50%; Elo -120 ±417 (anchor 0)", "(+0 Elo)"},
		{"one scale unrated", 10, 0, unrated, "vs random 50% (+0 Elo); 12m3s", "anchor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := runconfig.Defaults()
			cfg.Eval.Baselines = []string{"random"}
			cfg.Iterations, cfg.TimeLimit = tc.iterations, tc.limit
			line := unwrapSummary(summaryLine(tc.m, cfg))
			if !strings.Contains(line, tc.want) || tc.wantNone != "" && strings.Contains(line, tc.wantNone) {
				t.Errorf("%q: want %q in it and no %q", line, tc.want, tc.wantNone)
			}
		})
	}
}

// A progress bar names the iteration of the target and the run's time.
func TestStage(t *testing.T) {
	for _, tc := range []struct {
		iterations int
		limit      time.Duration
		want       string
	}{
		{10, 0, "iteration 3 of 10 self-play"},
		{0, 55 * time.Minute, "iteration 3 self-play (12m3s elapsed of 55m, 42m57s left)"},
		{10, 2 * time.Hour, "iteration 3 of 10 self-play (12m3s elapsed of 2h, 1h47m57s left)"},
		{0, 10 * time.Minute, "iteration 3 self-play (12m3s elapsed of 10m, 0s left)"},
	} {
		cfg := runconfig.Config{Iterations: tc.iterations, TimeLimit: tc.limit}
		if got := stage(cfg, 3, "self-play", 723); got != tc.want {
			t.Errorf("stage %q, want %q", got, tc.want)
		}
	}
}
