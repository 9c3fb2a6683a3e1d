package train

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestProgressLogLines(t *testing.T) {
	var buf bytes.Buffer
	clock := &fakeClock{t: time.Unix(1000, 0)}
	p := newLogProgress(&buf, 40, "self-play", "games", clock.now)
	for range 10 {
		clock.advance(time.Second)
		p.Add(1)
	}
	clock.advance(10 * time.Second)
	p.Describe("self-play (net 3)")
	p.Add(10)
	p.Finish()
	want := "self-play: 10/40 games (25%), 1 games/s, 30s left\n" +
		"self-play (net 3): 20/40 games (50%), 1 games/s, 20s left\n" +
		"self-play (net 3): 20 games in 20s, 1 games/s\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestProgressUnknownTotal(t *testing.T) {
	var buf bytes.Buffer
	clock := &fakeClock{t: time.Unix(0, 0)}
	p := newLogProgress(&buf, 0, "train", "steps", clock.now)
	clock.advance(20 * time.Second)
	p.Add(50)
	if got, want := buf.String(), "train: 50 steps, 2.5 steps/s\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestProgressQuiet(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, 5, "x", "games", true)
	p.Add(5)
	p.Finish()
	var none *Progress
	none.Add(1)
	none.Describe("y")
	none.Finish()
	if buf.Len() != 0 {
		t.Errorf("a quiet progress wrote %q", buf.String())
	}
}

func TestProgressNotATerminalLogs(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, 3, "eval", "games", false)
	p.Add(3)
	p.Finish()
	if !strings.HasPrefix(buf.String(), "eval: 3 games in ") {
		t.Errorf("a buffer got %q: want plain lines", buf.String())
	}
}

func TestProgressBarConcurrent(t *testing.T) {
	var buf bytes.Buffer
	p := newBarProgress(&buf, 100, "self-play", "games")
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 {
				p.Add(1)
			}
		}()
	}
	wg.Wait()
	p.Finish()
	out := buf.String()
	if !strings.Contains(out, "self-play") || !strings.Contains(out, "100/100") {
		t.Errorf("bar output %q lacks the description or the count", out)
	}
}
