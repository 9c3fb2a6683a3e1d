package testctx

import (
	"testing"
)

func TestContextEndsBeforeTheBinary(t *testing.T) {
	ctx := Context(t)
	binary, ok := t.Deadline()
	if !ok {
		t.Skip("go test runs without -timeout")
	}
	d, ok := ctx.Deadline()
	if !ok || !d.Equal(binary.Add(-margin)) {
		t.Errorf("context deadline %v (%v), want %v", d, ok, binary.Add(-margin))
	}
	if ctx.Err() != nil {
		t.Errorf("context already done: %v", ctx.Err())
	}
}

func TestContextEndsWithTheTest(t *testing.T) {
	var inner interface{ Err() error }
	t.Run("inner", func(t *testing.T) { inner = Context(t) })
	if inner.Err() == nil {
		t.Error("a finished test's context is still live")
	}
}

func TestWaitUntil(t *testing.T) {
	calls := 0
	WaitUntil(t, "the fifth call", func() bool { calls++; return calls == 5 })
	if calls != 5 {
		t.Errorf("cond called %d times, want 5", calls)
	}
}
