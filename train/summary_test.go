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
			line := summaryLine(tc.m, cfg)
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
