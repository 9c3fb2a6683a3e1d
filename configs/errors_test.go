package configs

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestFieldError(t *testing.T) {
	cases := []struct {
		name string
		err  *FieldError
		want string
	}{
		{"with a line", &FieldError{Key: "selfplay.games_per_iteration", Line: 7, Msg: "is 0: want 1 or more"}, "line 7: selfplay.games_per_iteration is 0: want 1 or more"},
		{"without a line", Errorf("c_puct", "is %v: want %s", 0, "a number above 0"), "c_puct is 0: want a number above 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestJoin(t *testing.T) {
	a, b := Errorf("a", "is bad"), Errorf("b", "is worse")
	if Join(nil) != nil {
		t.Error("Join(nil) is not nil")
	}
	if err := Join([]*FieldError{a}); err != error(a) {
		t.Errorf("Join of one = %v, want the error itself", err)
	}
	err := Join([]*FieldError{a, b})
	var fe *FieldError
	if err.Error() != "a is bad\nb is worse" || !errors.As(err, &fe) || fe != a || !errors.Is(err, b) {
		t.Errorf("Join of two = %q: want both, one a line, each findable", err)
	}
}

func TestLookup(t *testing.T) {
	for _, name := range Names() {
		if data, ok := Lookup(name); !ok || len(data) == 0 {
			t.Errorf("Lookup(%q) = %d bytes, %v", name, len(data), ok)
		}
	}
	if _, ok := Lookup("nonesuch"); ok {
		t.Error("Lookup(nonesuch) succeeded")
	}
}

func TestChecker(t *testing.T) {
	var ch Checker
	if ch.Err() != nil || ch.Len() != 0 {
		t.Fatalf("zero Checker: %v, %d problems", ch.Err(), ch.Len())
	}
	ch.Check(true, "fine", "is never said")
	ch.AtLeast("games", 0, 1)
	ch.AtLeast("games_ok", 1, 1)
	ch.Between("parallel", 5000, 1, 4096)
	ch.Between("parallel_ok", 4096, 1, 4096)
	ch.InRange("share", math.NaN(), 0, 1)
	ch.InRange("share_ok", 1, 0, 1)
	ch.Section("search", Join([]*FieldError{Errorf("c_puct", "is 0: want a number above 0"), Errorf("sims", "is -1: want 0 or more")}))
	ch.Section("model", errors.New("no such layer"))
	ch.Section("server", nil)
	want := []string{
		"games is 0: want 1 or more",
		"parallel is 5000: want 1 to 4096",
		"share is NaN: want 0 to 1",
		"search.c_puct is 0: want a number above 0",
		"search.sims is -1: want 0 or more",
		"model is invalid: no such layer",
	}
	got := make([]string, ch.Len())
	for i, p := range ch.Problems() {
		got[i] = p.Error()
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%q\nwant\n%q", got, want)
	}
	if err := ch.Err(); err == nil || err.Error() != strings.Join(want, "\n") {
		t.Errorf("Err() = %v", err)
	}
}
