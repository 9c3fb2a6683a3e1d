package play

import (
	"fmt"
	"math"
	"testing"
)

func TestSignedValue(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0.25, "+0.25"}, {-0.04, "-0.04"}, {0, "0.00"}, {-0.001, "0.00"}, {0.004, "0.00"}, {math.Copysign(0, -1), "0.00"}, {-1, "-1.00"}, {1, "+1.00"},
	} {
		t.Run(fmt.Sprint(tc.v), func(t *testing.T) {
			if got := signedValue(tc.v); got != tc.want {
				t.Errorf("signedValue(%v) = %q, want %q", tc.v, got, tc.want)
			}
		})
	}
}
