package mcts

import (
	"strings"
	"testing"
	"time"
)

// given reads "key=value,key=value" into settings as written.
func given(text string) []Given {
	var out []Given
	for part := range strings.SplitSeq(text, ",") {
		if part != "" {
			key, value, _ := strings.Cut(part, "=")
			out = append(out, Given{key, value})
		}
	}
	return out
}

func TestResolve(t *testing.T) {
	def := DefaultConfig() // 800 simulations, no time, 500,000 positions
	timed := DefaultConfig()
	timed.Simulations, timed.Time = 0, time.Second
	cases := []struct {
		base         Config
		given        string
		timed        int
		sims, nodes  int
		time         time.Duration
		validateFail bool
	}{
		{def, "", 0, 800, 500_000, 0, false},
		{def, "time=500ms", 0, 0, 500_000, 500 * time.Millisecond, false},
		{def, "time=500ms", 1000, 1000, 500_000, 500 * time.Millisecond, false},
		{def, "time=0.25s,sims=100", 0, 100, 100 * winNodesPerSimulation, 250 * time.Millisecond, false},
		{def, "simulations=100,time=2s", 1000, 100, 100 * winNodesPerSimulation, 2 * time.Second, false},
		{def, "sims=50", 0, 50, 50 * winNodesPerSimulation, 0, false},
		{def, "time=0s,sims=50", 0, 50, 50 * winNodesPerSimulation, 0, false},
		{def, "sims=0", 0, 0, 500_000, 0, true},
		{def, "time=0s", 0, 0, 500_000, 0, true},
		{timed, "", 0, 0, 500_000, time.Second, false},
		{timed, "time=100ms", 0, 0, 500_000, 100 * time.Millisecond, false},
		{timed, "sims=50,win_search_nodes=100000", 0, 50, 100_000, time.Second, false},
		{timed, "win_search_nodes=7,sims=50", 0, 50, 7, time.Second, false},
		{timed, "sims=100000", 0, 100_000, 500_000, time.Second, false},
		{timed, "win_search_nodes=5000", 0, 0, 5000, time.Second, false},
	}
	for _, tc := range cases {
		c, err := tc.base.Resolve(given(tc.given), tc.timed)
		if err != nil || c.Simulations != tc.sims || c.WinSearchNodes != tc.nodes || c.Time != tc.time {
			t.Errorf("%q over %d simulations, timed %d: %d simulations, %d positions, %v (%v): want %d, %d, %v",
				tc.given, tc.base.Simulations, tc.timed, c.Simulations, c.WinSearchNodes, c.Time, err, tc.sims, tc.nodes, tc.time)
		}
		if err := c.Validate(); (err != nil) != tc.validateFail {
			t.Errorf("%q: Validate: %v", tc.given, err)
		}
	}
}

func TestResolveNamesWhatWasGiven(t *testing.T) {
	cases := []struct{ given, want string }{
		{"sims=-1", "sims=-1: want a whole number, 0 (no limit, with a time) or more"},
		{"c_puct=0", "c_puct=0: want a number, a number above 0"},
		{"time=soon", "time=soon: want a duration of 0s (none) or more, such as 500ms"},
		{"reuse=yes", "reuse=yes: want true or false"},
		{"sims=10,simulations=20", "sims and simulations: both set simulations: give one"},
		{"sims=10,simulations=-1", "simulations=-1: want a whole number, 0 (no limit, with a time) or more"},
		{"simz=3", "simz=3: no search setting: want one of simulations, time, c_puct, "},
	}
	for _, tc := range cases {
		if _, err := DefaultConfig().Resolve(given(tc.given), 0); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.given, err, tc.want)
		}
	}
}

func TestWithSimulations(t *testing.T) {
	c := DefaultConfig() // 800 simulations, 500,000 positions
	cases := []struct{ full, sims, nodes int }{
		{800, 200, 125_000},
		{800, 800, 500_000},
		{800, 1600, 500_000},
		{0, 16, 500_000}, // a timed search without a simulation limit
		{3, 1, 166_666},
	}
	for _, tc := range cases {
		c.Simulations = tc.full
		if got := c.WithSimulations(tc.sims); got.Simulations != tc.sims || got.WinSearchNodes != tc.nodes {
			t.Errorf("%d of %d simulations: %d simulations, %d positions: want %d positions", tc.sims, tc.full, got.Simulations, got.WinSearchNodes, tc.nodes)
		}
	}
}
