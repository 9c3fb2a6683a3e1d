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
	for _, tc := range []struct {
		name     string
		m        metrics.Iteration
		want     []string
		wantNone string
	}{
		{"one machine", local, []string{"iteration 3: 32 games, 81 plies on average, 50% decided, 200 positions/s;"}, "remote"},
		{"local and remote", both, []string{"32 games + 50 from 2 actors", ", 81 plies on average, 50% decided, 200 positions/s, remote 75 plies on average, 36% decided;"}, "0 plies"},
		{"pure learner", remote, []string{"0 games + 50 from 2 actors (0 positions/s), remote 75 plies on average, 36% decided;"}, "0 plies on average"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := summaryLine(tc.m, Defaults())
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
