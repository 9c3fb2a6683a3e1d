package train

import (
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/train/metrics"
)

func TestSummaryLineGames(t *testing.T) {
	local := metrics.Iteration{Iteration: 3, SelfPlayGames: 32, MeanGameLength: 81, RedWinShare: 0.25, BlueWinShare: 0.25, PositionsPerSec: 200}
	both := local
	both.Actors, both.RemoteGames, both.RemoteMeanGameLength, both.RemoteDecidedShare = 2, 50, 75, 0.36
	remote := both
	remote.SelfPlayGames, remote.MeanGameLength, remote.RedWinShare, remote.BlueWinShare, remote.PositionsPerSec = 0, 0, 0, 0, 0
	pcr := Defaults()
	pcr.SelfPlay.FastSimulations = 16
	fast := local
	fast.SelfPlaySec, fast.PositionsPerSec = 40.5, 16 // 32 games of 81 plies in 40.5 s: 64 plies/s
	for _, tc := range []struct {
		name     string
		m        metrics.Iteration
		cfg      *Config
		want     []string
		wantNone string
	}{
		{"playout cap randomization", fast, &pcr, []string{"50% decided, 16 positions/s recorded of 64 plies/s;"}, "remote"},
		{"one machine", local, nil, []string{"iteration 3: 32 games, 81 plies on average, 50% decided, 200 positions/s;"}, "remote"},
		{"local and remote", both, nil, []string{"32 games + 50 from 2 actors", ", 81 plies on average, 50% decided, 200 positions/s, remote 75 plies on average, 36% decided;"}, "0 plies"},
		{"pure learner", remote, nil, []string{"0 games + 50 from 2 actors (0 positions/s), remote 75 plies on average, 36% decided;"}, "0 plies on average"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Defaults()
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
	cfg := Defaults()
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
		"vs alphabeta:time=200ms 1% (-1234 Elo); Elo -1234 ±222 (anchor 0); 999h0m0s elapsed"} {
		if !strings.Contains(unwrapSummary(text), w) {
			t.Errorf("%q lacks %q", text, w)
		}
	}
	short := metrics.Iteration{Iteration: 3, SelfPlayGames: 32, MeanGameLength: 81, PositionsPerSec: 200, ElapsedSec: 60}
	if line := summaryLine(short, Defaults()); strings.Contains(line, "\n") {
		t.Errorf("a short summary wrapped: %q", line)
	}
}
