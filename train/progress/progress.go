package progress

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// logInterval is how often a [Bar] that does not write to a
// terminal prints a line.
const logInterval = 10 * time.Second

// progressTick is how often a bar on a terminal is redrawn while no unit
// ends, so that its elapsed time and estimate stay current.
const progressTick = time.Second

// Bar reports how far a long job (self-play games, training steps,
// evaluation games) has come. On a terminal it draws a bar at once, with
// the count, the rate, the time elapsed and the time left; on anything else
// (a log file, a pipe) it prints a plain line every 10 seconds
// and one at the end; when quiet it prints nothing. A Bar is safe for
// concurrent use, so the goroutines doing the work can report to it
// directly. The nil *Bar is quiet too.
//
// The rate is the units done over the time since the Bar was made (units
// done before it, [Bar.AddPrior], count only towards the total).
// Units such as self-play games run in parallel and end in bursts, so a
// rate over a short window (progressbar's own) is off by orders of
// magnitude; the whole-job average is what predicts the end.
type Bar struct {
	mu    sync.Mutex
	bar   *progressbar.ProgressBar // on a terminal
	w     io.Writer                // for log lines; nil when quiet or on a terminal
	stop  chan struct{}            // ends the bar's redraws
	desc  string
	unit  string
	total int
	done  int
	prior int // of done, the units done before the Bar was made
	start time.Time
	last  time.Time // of the last log line
	every time.Duration
	now   func() time.Time
}

// New starts reporting a job of total units (games, steps; 0 or
// less when unknown) called desc, such as "self-play", on w. The unit is
// the plural, "games": a count of one drops its final s ("1 game").
func New(w io.Writer, total int, desc, unit string, quiet bool) *Bar {
	switch {
	case quiet:
		return newLogBar(nil, total, desc, unit, time.Now)
	case isTerminal(w):
		return newTerminalBar(w, total, desc, unit, time.Now, progressTick)
	}
	return newLogBar(w, total, desc, unit, time.Now)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newTerminalBar draws a bar on w, redrawn every tick. The bar shows only
// the fill and the percentage of its own; the figures are this package's,
// in the description at the end of the line.
func newTerminalBar(w io.Writer, total int, desc, unit string, now func() time.Time, tick time.Duration) *Bar {
	max := total
	if max <= 0 {
		max = -1 // a spinner
	}
	p := &Bar{desc: desc, unit: unit, total: total, start: now(), now: now, stop: make(chan struct{})}
	p.bar = progressbar.NewOptions(max,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowDescriptionAtLineEnd(),
		progressbar.OptionSetDescription(p.status(false)),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionSetElapsedTime(false),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
	)
	stop := p.stop
	go func() {
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				p.mu.Lock()
				if p.stop != nil { // else Finish came first and drew the last line
					p.bar.Describe(p.status(false))
				}
				p.mu.Unlock()
			}
		}
	}()
	return p
}

func newLogBar(w io.Writer, total int, desc, unit string, now func() time.Time) *Bar {
	t := now()
	return &Bar{w: w, desc: desc, unit: unit, total: total, start: t, last: t, every: logInterval, now: now}
}

// Add records n more units done.
func (p *Bar) Add(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	switch {
	case p.bar != nil:
		// A failed write to the terminal only loses the display.
		if p.total <= 0 || p.done < p.total {
			_ = p.bar.Set(p.done)
		}
		p.bar.Describe(p.status(false))
	case p.w != nil && p.now().Sub(p.last) >= p.every:
		p.last = p.now()
		fmt.Fprintln(p.w, p.status(false))
	}
}

// AddPrior records n units done before the Bar was made, such as the games
// of an interrupted evaluation that a resumed one keeps: they count towards
// the total, not towards the rate.
func (p *Bar) AddPrior(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.prior += n
	p.mu.Unlock()
	p.Add(n)
}

// Describe changes the description, for instance to show the latest loss:
// on a terminal at once, in log lines from the next one on.
func (p *Bar) Describe(desc string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.desc = desc
	if p.bar != nil {
		p.bar.Describe(p.status(false))
	}
}

// Finish ends the report: it fills the bar, or prints the final line.
func (p *Bar) Finish() { p.end("", true) }

// Stop ends the report of a job that did not finish, saying why
// ("interrupted"): the bar keeps its fill, and the last line says what was
// done and that it stopped, "self-play: stopped (interrupted) after 3/32
// games in 7.7s, 0.39 games/s".
func (p *Bar) Stop(why string) { p.end(why, false) }

// end draws the last line, the final status or, with a reason, the
// stopped one; fill completes a terminal's bar.
func (p *Bar) end(why string, fill bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	last := p.status(true)
	if why != "" {
		last = p.stopped(why)
	}
	switch {
	case p.bar != nil && p.stop != nil:
		close(p.stop)
		p.stop = nil
		p.bar.Describe(last)
		if fill {
			_ = p.bar.Finish()
		} else {
			_ = p.bar.Exit()
		}
	case p.w != nil:
		fmt.Fprintln(p.w, last)
		p.w = nil
	}
}

// stopped is the last line of a job that stopped before its end.
func (p *Bar) stopped(why string) string {
	elapsed := p.now().Sub(p.start)
	done := strconv.Itoa(p.done)
	if p.total > 0 {
		done += "/" + strconv.Itoa(p.total)
	}
	return fmt.Sprintf("%s: stopped (%s) after %s %s in %v, %s %s/s", p.desc, why, done, p.units(max(p.done, p.total)),
		elapsed.Round(time.Second/10), plainNumber(p.rate(elapsed)), p.unit)
}

// status is the text of the report: "self-play: 12/32 games (37%), 1.3
// games/s, 9s elapsed, 15s left", or at the end "self-play: 32 games in
// 25s, 1.3 games/s".
func (p *Bar) status(final bool) string {
	elapsed := p.now().Sub(p.start)
	rate := p.rate(elapsed)
	rateText := plainNumber(rate) + " " + p.unit + "/s"
	if final {
		return fmt.Sprintf("%s: %d %s in %v, %s", p.desc, p.done, p.units(p.done), elapsed.Round(time.Second/10), rateText)
	}
	if p.total <= 0 {
		return fmt.Sprintf("%s: %d %s, %s, %v elapsed", p.desc, p.done, p.units(p.done), rateText, elapsed.Round(time.Second))
	}
	left := "?"
	if rate > 0 {
		left = time.Duration(float64(p.total-p.done) / rate * float64(time.Second)).Round(time.Second).String()
	}
	return fmt.Sprintf("%s: %d/%d %s (%d%%), %s, %v elapsed, %s left",
		p.desc, p.done, p.total, p.units(p.total), 100*p.done/p.total, rateText, elapsed.Round(time.Second), left)
}

// rate is the units done per second of elapsed, those before the Bar
// aside.
func (p *Bar) rate(elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return 0
	}
	return float64(p.done-p.prior) / elapsed.Seconds()
}

// units is the unit for a count of n: "1 game", "0 games", "2 games".
func (p *Bar) units(n int) string {
	if n == 1 {
		return strings.TrimSuffix(p.unit, "s")
	}
	return p.unit
}

// plainNumber writes x with about three significant digits and never an
// exponent: 4321, 5.9, 0.25; for rates in messages, where "4.3e+03" puts
// a reader off.
func plainNumber(x float64) string {
	digits := 0
	switch a := max(x, -x); {
	case a < 1:
		digits = 3
	case a < 10:
		digits = 2
	case a < 100:
		digits = 1
	}
	s := strconv.FormatFloat(x, 'f', digits, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
