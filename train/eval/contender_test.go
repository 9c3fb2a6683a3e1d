package eval

import "testing"

func TestDefaultAnchor(t *testing.T) {
	cases := []struct {
		name    string
		players []Contender
		want    string
	}{
		{"random when present", contenders("greedy", "alphabeta:depth=2", "random"), "random"},
		{"else the first", contenders("greedy", "alphabeta:depth=2"), "greedy"},
		{"a named random", []Contender{{Entrant: Entrant{Name: "x"}, Spec: "greedy"}, {Entrant: Entrant{Name: "base"}, Spec: "random"}}, "base"},
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
