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
		{"the anchor before random", contenders("random", "greedy", "az:model=anchor,sims=100"), "az:model=anchor,sims=100"},
		{"another az is not the anchor", contenders("az:model=run/nets/net-000010.dsnn", "random"), "random"},
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
