package web

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"
)

// TestSearchRequests pins what the query of GET /api/search resolves to:
// the simulations, the time and the root of the search, or the error.
func TestSearchRequests(t *testing.T) {
	servers := map[string]Options{
		"default": {Players: []string{"random"}},
		"small":   {Players: []string{"random"}, MaxSimulations: 1000, MaxSearchTime: 3 * time.Second},
	}
	cases := []struct{ server, query, want string }{
		{"default", "", "sims=800 limit=10s gumbel=false top=10"},
		{"default", "sims=50", "sims=50 limit=10s gumbel=false top=10"},
		{"default", "simulations=200", "sims=200 limit=10s gumbel=false top=10"},
		{"default", "time=500ms", "sims=100000 limit=500ms gumbel=false top=10"},
		{"default", "time=2s&sims=100", "sims=100 limit=2s gumbel=false top=10"},
		{"default", "simulations=100&time=2s", "sims=100 limit=2s gumbel=false top=10"},
		{"default", "time=3s", "sims=100000 limit=3s gumbel=false top=10"},
		{"default", "time=0.5s", "sims=100000 limit=500ms gumbel=false top=10"},
		{"default", "gumbel=true", "sims=800 limit=10s gumbel=true top=10"},
		{"default", "gumbel=false", "sims=800 limit=10s gumbel=false top=10"},
		{"default", "gumbel=1", "sims=800 limit=10s gumbel=true top=10"},
		{"default", "top=3", "sims=800 limit=10s gumbel=false top=3"},
		{"default", "sims=1000", "sims=1000 limit=10s gumbel=false top=10"},
		{"default", "sims=1", "sims=1 limit=10s gumbel=false top=10"},
		{"default", "time=10s", "sims=100000 limit=10s gumbel=false top=10"},
		{"default", "seconds=0.5", "error: query: unknown parameter \"seconds\" (want fen, start_ply, moves, simulations, time, gumbel, top)"},
		{"default", "root=gumbel", "error: query: unknown parameter \"root\" (want fen, start_ply, moves, simulations, time, gumbel, top)"},
		{"default", "sims=0", "error: sims \"0\": want a whole number from 1 to 100000"},
		{"default", "sims=1001", "sims=1001 limit=10s gumbel=false top=10"},
		{"default", "sims=many", "error: query: sims=many: want a whole number, 0 (no limit, with a time) or more"},
		{"default", "simulations=0", "error: simulations \"0\": want a whole number from 1 to 100000"},
		{"default", "simulations=5&sims=6", "error: query: sims and simulations: both set simulations: give one"},
		{"default", "time=11s", "error: time 11s: want a duration above 0 and at most 10s"},
		{"default", "time=4s", "sims=100000 limit=4s gumbel=false top=10"},
		{"default", "time=0s", "error: time 0s: want a duration above 0 and at most 10s"},
		{"default", "time=soon", "error: query: time=soon: want a duration of 0s (none) or more, such as 500ms"},
		{"default", "gumbel=maybe", "error: query: gumbel=maybe: want true or false"},
		{"default", "c_puct=2", "error: query: unknown parameter \"c_puct\" (want fen, start_ply, moves, simulations, time, gumbel, top)"},
		{"default", "depth=3", "error: query: unknown parameter \"depth\" (want fen, start_ply, moves, simulations, time, gumbel, top)"},
		{"default", "top=0", "error: top \"0\": want a whole number from 1 to 50"},
		{"small", "", "sims=800 limit=3s gumbel=false top=10"},
		{"small", "sims=50", "sims=50 limit=3s gumbel=false top=10"},
		{"small", "simulations=200", "sims=200 limit=3s gumbel=false top=10"},
		{"small", "time=500ms", "sims=1000 limit=500ms gumbel=false top=10"},
		{"small", "time=2s&sims=100", "sims=100 limit=2s gumbel=false top=10"},
		{"small", "simulations=100&time=2s", "sims=100 limit=2s gumbel=false top=10"},
		{"small", "time=3s", "sims=1000 limit=3s gumbel=false top=10"},
		{"small", "time=0.5s", "sims=1000 limit=500ms gumbel=false top=10"},
		{"small", "gumbel=true", "sims=800 limit=3s gumbel=true top=10"},
		{"small", "gumbel=false", "sims=800 limit=3s gumbel=false top=10"},
		{"small", "gumbel=1", "sims=800 limit=3s gumbel=true top=10"},
		{"small", "top=3", "sims=800 limit=3s gumbel=false top=3"},
		{"small", "sims=1000", "sims=1000 limit=3s gumbel=false top=10"},
		{"small", "sims=1", "sims=1 limit=3s gumbel=false top=10"},
		{"small", "time=10s", "error: time 10s: want a duration above 0 and at most 3s"},
		{"small", "seconds=0.5", "error: query: unknown parameter \"seconds\" (want fen, start_ply, moves, simulations, time, gumbel, top)"},
		{"small", "root=gumbel", "error: query: unknown parameter \"root\" (want fen, start_ply, moves, simulations, time, gumbel, top)"},
		{"small", "sims=0", "error: sims \"0\": want a whole number from 1 to 1000"},
		{"small", "sims=1001", "error: sims \"1001\": want a whole number from 1 to 1000"},
		{"small", "sims=many", "error: query: sims=many: want a whole number, 0 (no limit, with a time) or more"},
		{"small", "simulations=0", "error: simulations \"0\": want a whole number from 1 to 1000"},
		{"small", "simulations=5&sims=6", "error: query: sims and simulations: both set simulations: give one"},
		{"small", "time=11s", "error: time 11s: want a duration above 0 and at most 3s"},
		{"small", "time=4s", "error: time 4s: want a duration above 0 and at most 3s"},
		{"small", "time=0s", "error: time 0s: want a duration above 0 and at most 3s"},
		{"small", "time=soon", "error: query: time=soon: want a duration of 0s (none) or more, such as 500ms"},
		{"small", "gumbel=maybe", "error: query: gumbel=maybe: want true or false"},
		{"small", "c_puct=2", "error: query: unknown parameter \"c_puct\" (want fen, start_ply, moves, simulations, time, gumbel, top)"},
		{"small", "depth=3", "error: query: unknown parameter \"depth\" (want fen, start_ply, moves, simulations, time, gumbel, top)"},
		{"small", "top=0", "error: top \"0\": want a whole number from 1 to 50"},
	}
	for _, tc := range cases {
		s, _ := startServer(t, servers[tc.server])
		got := ""
		if p, err := s.parseSearch(httptest.NewRequest("GET", "/api/search?"+tc.query, nil)); err != nil {
			got = "error: " + err.Error()
		} else {
			got = fmt.Sprintf("sims=%d limit=%v gumbel=%v top=%d", p.sims, p.limit, p.gumbel, p.topMove)
		}
		if got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.server, tc.query, got, tc.want)
		}
	}
}
