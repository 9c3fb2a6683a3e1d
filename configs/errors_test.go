package configs

import (
	"errors"
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
