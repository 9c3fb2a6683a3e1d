package train

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// ProgressLogInterval is how often a [Progress] that does not write to a
// terminal prints a line.
const ProgressLogInterval = 10 * time.Second

// Progress reports how far a long job (self-play games, training steps,
// evaluation games) has come. On a terminal it draws a bar with the count,
// the rate and the time left; on anything else (a log file, a pipe) it
// prints a plain line every [ProgressLogInterval] and one at the end; when
// quiet it prints nothing. A Progress is safe for concurrent use, so the
// goroutines doing the work can report to it directly. The nil *Progress is
// quiet too.
type Progress struct {
	mu    sync.Mutex
	bar   *progressbar.ProgressBar // on a terminal
	w     io.Writer                // for log lines; nil when quiet or on a terminal
	desc  string
	unit  string
	total int
	done  int
	start time.Time
	last  time.Time // of the last log line
	every time.Duration
	now   func() time.Time
}

// NewProgress starts reporting a job of total units (games, steps; 0 or
// less when unknown) called desc, such as "self-play", on w.
func NewProgress(w io.Writer, total int, desc, unit string, quiet bool) *Progress {
	switch {
	case quiet:
		return newLogProgress(nil, total, desc, unit, time.Now)
	case isTerminal(w):
		return newBarProgress(w, total, desc, unit)
	}
	return newLogProgress(w, total, desc, unit, time.Now)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func newBarProgress(w io.Writer, total int, desc, unit string) *Progress {
	if total <= 0 {
		total = -1 // a spinner
	}
	bar := progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
	)
	return &Progress{bar: bar, desc: desc, unit: unit, total: total}
}

func newLogProgress(w io.Writer, total int, desc, unit string, now func() time.Time) *Progress {
	t := now()
	return &Progress{w: w, desc: desc, unit: unit, total: total, start: t, last: t, every: ProgressLogInterval, now: now}
}

// Add records n more units done.
func (p *Progress) Add(n int) {
	if p == nil {
		return
	}
	if p.bar != nil {
		_ = p.bar.Add(n) // a failed write to the terminal only loses the display
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	if p.w != nil && p.now().Sub(p.last) >= p.every {
		p.logLine(false)
	}
}

// Describe changes the description, for instance to show the latest loss:
// on a terminal at once, in log lines from the next one on.
func (p *Progress) Describe(desc string) {
	if p == nil {
		return
	}
	if p.bar != nil {
		p.bar.Describe(desc)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.desc = desc
}

// Finish ends the report: it fills the bar, or prints the final line.
func (p *Progress) Finish() {
	if p == nil {
		return
	}
	if p.bar != nil {
		_ = p.bar.Finish()
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil {
		p.logLine(true)
	}
}

// logLine prints "self-play: 12/32 games (38%), 1.3 games/s, 15s left", or
// at the end "self-play: 32 games in 25s, 1.3 games/s".
func (p *Progress) logLine(final bool) {
	now := p.now()
	p.last = now
	elapsed := now.Sub(p.start)
	rate := 0.0
	if elapsed > 0 {
		rate = float64(p.done) / elapsed.Seconds()
	}
	if final {
		fmt.Fprintf(p.w, "%s: %d %s in %v, %.3g %s/s\n", p.desc, p.done, p.unit, elapsed.Round(time.Second/10), rate, p.unit)
		return
	}
	if p.total <= 0 {
		fmt.Fprintf(p.w, "%s: %d %s, %.3g %s/s\n", p.desc, p.done, p.unit, rate, p.unit)
		return
	}
	left := "?"
	if rate > 0 {
		left = time.Duration(float64(p.total-p.done) / rate * float64(time.Second)).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "%s: %d/%d %s (%d%%), %.3g %s/s, %s left\n",
		p.desc, p.done, p.total, p.unit, 100*p.done/p.total, rate, p.unit, left)
}
