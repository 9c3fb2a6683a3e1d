package eval

import "testing"

func TestFormatSeconds(t *testing.T) {
	for _, tc := range []struct {
		sec  float64
		want string
	}{{0, "0m00s"}, {59.6, "1m00s"}, {200, "3m20s"}, {3600, "1h00m"}, {3725, "1h02m"}} {
		if got := formatSeconds(tc.sec); got != tc.want {
			t.Errorf("formatSeconds(%v) = %q, want %q", tc.sec, got, tc.want)
		}
	}
}
