package env

import (
	"errors"
	"slices"
	"testing"
)

// TestSettingErrors: every setting out of range is reported, each keyed by
// its YAML key, so that a config loader can name it and its line.
func TestSettingErrors(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want []string // key: message
	}{
		{"good rules", DefaultRules().Validate(), nil},
		{"good options", DefaultOptions().Validate(), nil},
		{"rules", Rules{MaxPlies: -1, RepetitionLimit: 1}.Validate(), []string{
			"max_plies: is -1: want 0 (no limit) or more", "repetitions: is 1: want 0 (off) or 2 or more"}},
		{"options", Options{Rules: Rules{RepetitionLimit: -2}, OpeningPlies: -1}.Validate(), []string{
			"rules.repetitions: is -2: want 0 (off) or 2 or more", "opening_plies: is -1: want 0 or more"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			if tc.err != nil {
				for _, e := range tc.err.(interface{ Unwrap() []error }).Unwrap() {
					var se *SettingError
					if !errors.As(e, &se) {
						t.Fatalf("%T %v: want a *SettingError", e, e)
					}
					key, msg := se.Setting()
					got = append(got, key+": "+msg)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("problems %q, want %q", got, tc.want)
			}
		})
	}
}
