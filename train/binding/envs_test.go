package binding

import (
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
)

// An environment's calls: its state and legal actions agree, its texts
// name its game, and bad numbers are refused.
func TestEnv(t *testing.T) {
	e, err := NewEnv(env.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Reset(1, "", 0, nil, nil); err != nil {
		t.Fatal(err)
	}
	legal := make([]int64, 256)
	n := e.Legal(legal)
	move, err := MoveOf(legal[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := e.Step(legal[0], nil, nil); err != nil {
		t.Fatal(err)
	}
	state := make([]int64, 5)
	if err := e.State(state); err != nil {
		t.Fatal(err)
	}
	if state[1] != 1 || state[3] != 1 || state[4] != e.Legal(legal) || n == 0 {
		t.Errorf("state %v after one ply from %d legal actions", state, n)
	}
	for which, want := range map[int64]string{TextFEN: " b", TextMoves: move, TextStartFEN: env.StartFEN} {
		if text, err := e.Text(which); err != nil || !strings.Contains(text, want) {
			t.Errorf("text %d = %q, %v: want it to hold %q", which, text, err, want)
		}
	}
	for _, err := range []error{
		e.State(make([]int64, 4)),
		e.Reset(1, "", 1<<40, nil, nil),
		func() error { _, _, _, err := e.Step(env.NumActions, nil, nil); return err }(),
		func() error { _, err := e.Text(9); return err }(),
	} {
		if err == nil {
			t.Error("bad numbers accepted")
		}
	}
}
