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

// Apply sets what it is given and derives nothing.
func TestApply(t *testing.T) {
	def := DefaultConfig() // 800 simulations, no time, 500,000 positions
	cases := []struct {
		given       string
		sims, nodes int
		time        time.Duration
	}{
		{"", 800, 500_000, 0},
		{"time=500ms", 800, 500_000, 500 * time.Millisecond},
		{"sims=50", 50, 500_000, 0},
		{"sims=0,time=1s", 0, 500_000, time.Second},
		{"win_search_nodes=7", 800, 7, 0},
	}
	for _, tc := range cases {
		c, err := def.Apply(given(tc.given))
		if err != nil || c.Simulations != tc.sims || c.WinSearchNodes != tc.nodes || c.Time != tc.time {
			t.Errorf("%q: %d simulations, %d positions, %v (%v): want %d, %d, %v",
				tc.given, c.Simulations, c.WinSearchNodes, c.Time, err, tc.sims, tc.nodes, tc.time)
		}
	}
	for _, tc := range []struct{ given, want string }{
		{"sims=-1", "sims=-1: want a whole number, 0 (no limit, with a time) or more"},
		{"sims=10,simulations=20", "sims and simulations: both set simulations: give one"},
		{"simz=3", "simz=3: no search setting: want one of simulations, time, c_puct, "},
	} {
		if _, err := def.Apply(given(tc.given)); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.given, err, tc.want)
		}
	}
}

// Keywords orders keyword settings as the table lists them, unknown keys
// last by name, whatever the map's order.
func TestKeywords(t *testing.T) {
	kw := map[string]string{"zeta": "1", "gumbel": "true", "sims": "8", "alpha": "0.3", "time": "1s", "beta": "2"}
	want := "sims=8,time=1s,alpha=0.3,gumbel=true,beta=2,zeta=1"
	for range 20 {
		var got []string
		for _, g := range Keywords(kw) {
			got = append(got, g.Key+"="+g.Value)
		}
		if s := strings.Join(got, ","); s != want {
			t.Fatalf("Keywords: %s, want %s", s, want)
		}
	}
}

// ResolveKeywords resolves keyword settings in the table's order, the
// derived settings included, and checks the result.
func TestResolveKeywords(t *testing.T) {
	cases := []struct {
		kw   map[string]string
		want string // the changed settings, or the error
	}{
		{map[string]string{"sims": "50"}, "simulations=50,win_search_nodes=5000"},
		{map[string]string{"time": "500ms"}, "simulations=0,time=500ms"},
		{map[string]string{"time": "0s"}, "simulations is 0 without a time: want 1 or more, or a time per move"},
		{map[string]string{"simz": "3", "sims": "-1"}, "sims=-1: want a whole number, 0 (no limit, with a time) or more"},
		{map[string]string{"gumbel": "true", "dirichlet_epsilon": "0.25"}, "dirichlet_epsilon is 0.25: want 0 with gumbel, whose own noise explores"},
	}
	def := DefaultConfig()
	for _, tc := range cases {
		c, err := def.ResolveKeywords(tc.kw, 0)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			var changed []string
			for _, key := range SettingKeys() {
				if v := c.Get(key); v != def.Get(key) {
					changed = append(changed, key+"="+v)
				}
			}
			got = strings.Join(changed, ",")
		}
		if got != tc.want {
			t.Errorf("%v: %q, want %q", tc.kw, got, tc.want)
		}
	}
}
