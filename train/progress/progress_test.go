package progress

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/train/table"
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
	p := newLogBar(&buf, 40, "self-play", "games", clock.now)
	for range 10 {
		clock.advance(time.Second)
		p.Add(1)
	}
	clock.advance(10 * time.Second)
	p.Describe("self-play (net 3)")
	p.Add(10)
	p.Finish()
	want := "self-play: 10/40 games (25%), 1 games/s, 10s elapsed, 30s left\n" +
		"self-play (net 3): 20/40 games (50%), 1 games/s, 20s elapsed, 20s left\n" +
		"self-play (net 3): 20 games in 20s, 1 games/s\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

// A resumed job's earlier units fill the bar but not its rate: 30 of 40
// games kept, then 5 in 10 s is 0.5 games/s and 10 s left.
func TestProgressPriorUnits(t *testing.T) {
	var buf bytes.Buffer
	clock := &fakeClock{t: time.Unix(1000, 0)}
	p := newLogBar(&buf, 40, "eval", "games", clock.now)
	p.AddPrior(30)
	clock.advance(10 * time.Second)
	p.Add(5)
	p.Finish()
	want := "eval: 35/40 games (87%), 0.5 games/s, 10s elapsed, 10s left\n" +
		"eval: 35 games in 10s, 0.5 games/s\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestProgressUnknownTotal(t *testing.T) {
	var buf bytes.Buffer
	clock := &fakeClock{t: time.Unix(0, 0)}
	p := newLogBar(&buf, 0, "train", "steps", clock.now)
	clock.advance(20 * time.Second)
	p.Add(50)
	if got, want := buf.String(), "train: 50 steps, 2.5 steps/s, 20s elapsed\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestProgressQuiet(t *testing.T) {
	var buf bytes.Buffer
	p := New(&buf, 5, "x", "games", true)
	p.Add(5)
	p.Finish()
	var none *Bar
	none.Add(1)
	none.Describe("y")
	none.Finish()
	if buf.Len() != 0 {
		t.Errorf("a quiet progress wrote %q", buf.String())
	}
}

func TestProgressNotATerminalLogs(t *testing.T) {
	var buf bytes.Buffer
	p := New(&buf, 3, "eval", "games", false)
	p.Add(3)
	p.Finish()
	if !strings.HasPrefix(buf.String(), "eval: 3 games in ") {
		t.Errorf("a buffer got %q: want plain lines", buf.String())
	}
}

func TestProgressBarConcurrent(t *testing.T) {
	var buf syncBuffer
	p := newTerminalBar(&buf, 100, "self-play", "games", time.Now, time.Millisecond)
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
	if !strings.Contains(out, "self-play: 100 games in ") || !strings.Contains(out, "100%") {
		t.Errorf("bar output %q lacks the final count", out)
	}
}

// syncBuffer is a buffer that a bar's redraws may write from another
// goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// lastLine is the bar as a terminal shows it now: the text after the last
// carriage return, without padding.
func lastLine(s string) string {
	s = strings.TrimRight(s, " \n")
	return strings.TrimSpace(s[strings.LastIndex(s, "\r")+1:])
}

// The bar shows at once, before any unit ends, and its rate and estimate
// are the whole job's: bursts of units ending together do not inflate them.
func TestProgressBarRates(t *testing.T) {
	var buf syncBuffer
	clock := &fakeClock{t: time.Unix(1000, 0)}
	p := newTerminalBar(&buf, 64, "self-play", "games", clock.now, time.Hour)
	if got := lastLine(buf.String()); !strings.Contains(got, "self-play: 0/64 games (0%), 0 games/s, 0s elapsed, ? left") {
		t.Errorf("before any game: %q", got)
	}
	clock.advance(100 * time.Second)
	for range 16 { // a burst: 16 parallel games end in the same instant
		p.Add(1)
	}
	want := "self-play: 16/64 games (25%), 0.16 games/s, 1m40s elapsed, 5m0s left"
	if got := lastLine(buf.String()); !strings.Contains(got, want) || !strings.Contains(got, "25%") {
		t.Errorf("after a burst: %q, want %q", got, want)
	}
	clock.advance(5 * time.Second)
	p.Describe("self-play (net 2)")
	if got := lastLine(buf.String()); !strings.Contains(got, "self-play (net 2): 16/64 games (25%), 0.152 games/s, 1m45s elapsed, 5m15s left") {
		t.Errorf("redrawn: %q", got)
	}
	clock.advance(300 * time.Second)
	p.Add(48)
	p.Finish()
	if got := lastLine(buf.String()); !strings.Contains(got, "self-play (net 2): 64 games in 6m45s, 0.158 games/s") || !strings.Contains(got, "100%") {
		t.Errorf("finished: %q", got)
	}
}

func TestPlainNumber(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{0, "0"}, {4321.4, "4321"}, {148.2, "148"}, {5.9, "5.9"}, {1, "1"}, {0.25, "0.25"},
		{0.1234, "0.123"}, {12.34, "12.3"}, {7267, "7267"}, {-2.5, "-2.5"},
	} {
		if got := plainNumber(tc.x); got != tc.want {
			t.Errorf("plainNumber(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 plies"}, {1, "1 ply"}, {2, "2 plies"}, {300, "300 plies"}} {
		if got := table.Count(tc.n, "ply", "plies"); got != tc.want {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// Counts of one are singular; rates stay plural ("1 games/s" reads as
// games per second).
func TestPlurals(t *testing.T) {
	for _, tc := range []struct {
		name        string
		total, done int
		final       bool
		want        string
	}{
		{"one done of one", 1, 1, true, "x: 1 game in 1s, 1 games/s"},
		{"one of unknown", 0, 1, false, "x: 1 game, 1 games/s, 1s elapsed"},
		{"none of one", 1, 0, false, "x: 0/1 game (0%), 0 games/s, 1s elapsed, ? left"},
		{"two done", 2, 2, true, "x: 2 games in 1s, 2 games/s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{t: time.Unix(0, 0)}
			p := newLogBar(nil, tc.total, "x", "games", clock.now)
			p.done = tc.done
			clock.advance(time.Second)
			if got := p.status(tc.final); got != tc.want {
				t.Errorf("status = %q, want %q", got, tc.want)
			}
		})
	}
}

// A stopped job's last line says what was done and that it stopped; on a
// terminal the bar keeps its fill instead of jumping to 100%.
func TestProgressStop(t *testing.T) {
	cases := []struct {
		name     string
		terminal bool
		total    int
		want     string
	}{
		{"log", false, 32, "iteration 2 self-play: stopped (interrupted) after 3/32 games in 7.5s, 0.4 games/s\n"},
		{"log, no total", false, 0, "iteration 2 self-play: stopped (interrupted) after 3 games in 7.5s, 0.4 games/s\n"},
		{"terminal", true, 32, "iteration 2 self-play: stopped (interrupted) after 3/32 games in 7.5s, 0.4 games/s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var buf syncBuffer
			clock := &fakeClock{t: time.Unix(1000, 0)}
			var p *Bar
			if tc.terminal {
				p = newTerminalBar(&buf, tc.total, "iteration 2 self-play", "games", clock.now, time.Hour)
			} else {
				p = newLogBar(&buf, tc.total, "iteration 2 self-play", "games", clock.now)
			}
			p.Add(3)
			clock.advance(7500 * time.Millisecond)
			p.Stop("interrupted")
			p.Stop("twice") // no second line
			out := buf.String()
			if tc.terminal {
				if got := lastLine(out); !strings.Contains(got, tc.want) || strings.Contains(got, "100%") {
					t.Errorf("last line %q: want %q, without 100%%", got, tc.want)
				}
				return
			}
			if out != tc.want {
				t.Errorf("got %q, want %q", out, tc.want)
			}
		})
	}
}
