package remotegames

import (
	"encoding/json"
	"testing"
)

func TestResultMerge(t *testing.T) {
	r := Result{Cursor: json.RawMessage(`1`), Games: 2, Positions: 20, Plies: 100, Decided: 1, Stale: 1, VersionLag: 1, NetworkSwitchMs: 30, Actors: 3}
	r.Merge(Result{Cursor: json.RawMessage(`2`), Games: 2, Positions: 10, Plies: 60, Decided: 2, Duplicate: 1, VersionLag: 0, NetworkSwitchMs: 10, Actors: 4,
		IngestGamesPerSec: 7, Backlog: 5, PublishToWindowMs: Percentiles{P50: 1, P99: 2, Max: 3}})
	r.Merge(Result{}) // a Collect that failed before it read anything
	want := Result{Cursor: json.RawMessage(`2`), Games: 4, Positions: 30, Plies: 160, Decided: 3, Stale: 1, Duplicate: 1, VersionLag: 0.5, NetworkSwitchMs: 30,
		IngestGamesPerSec: 7, Backlog: 5}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"cursor", string(r.Cursor), string(want.Cursor)},
		{"games", r.Games, want.Games},
		{"positions", r.Positions, want.Positions},
		{"plies", r.Plies, want.Plies},
		{"decided", r.Decided, want.Decided},
		{"dropped", [3]int{r.Stale, r.Invalid, r.Duplicate}, [3]int{want.Stale, want.Invalid, want.Duplicate}},
		{"version lag", r.VersionLag, want.VersionLag},
		{"network switch", r.NetworkSwitchMs, want.NetworkSwitchMs},
		{"actors (the latest)", r.Actors, 4},
		{"rate and backlog (the latest)", [2]float64{r.IngestGamesPerSec, float64(r.Backlog)}, [2]float64{want.IngestGamesPerSec, float64(want.Backlog)}},
		{"delays (the latest)", r.PublishToWindowMs, Percentiles{P50: 1, P99: 2, Max: 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("%v, want %v", c.got, c.want)
			}
		})
	}
}
