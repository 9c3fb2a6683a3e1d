package env

import "testing"

func TestPerftQuick(t *testing.T) {
	p := StartPosition()
	for d, want := range []uint64{1, 48, 2304, 116928, 5930128} {
		if got := Perft(p, d, true); got != want {
			t.Errorf("perft %d = %d want %d", d, got, want)
		}
	}
}
