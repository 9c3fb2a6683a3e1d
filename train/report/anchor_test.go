package report

import (
	"testing"

	"github.com/deathstacks/deathstacks/train/arena"
)

func TestDefaultAnchor(t *testing.T) {
	cases := []struct {
		name    string
		players []arena.Contender
		want    string
	}{
		{"random when present", contenders("greedy", "alphabeta:depth=2", "random"), "random"},
		{"else the first", contenders("greedy", "alphabeta:depth=2"), "greedy"},
		{"a named random", []arena.Contender{{Entrant: arena.Entrant{Name: "x"}, Spec: "greedy"}, {Entrant: arena.Entrant{Name: "base"}, Spec: "random"}}, "base"},
		{"none", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := DefaultAnchor(tc.players); got != tc.want {
				t.Errorf("%q, want %q", got, tc.want)
			}
		})
	}
}
