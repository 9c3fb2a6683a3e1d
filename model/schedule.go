package model

import (
	"fmt"
	"math"
)

// SetProgress places the trainer's next step at fraction p (0 to 1) of
// its cosine schedule: the schedule's length becomes the steps taken so
// far (by the optimiser state: the run's own) over p, so that a run
// measured in time rather than steps (package train follows its time
// limit) moves the learning rate with its own progress. Past 1 the rate
// stays at MinLR. It must not be called during Step; with another
// schedule than cosine it does nothing.
func (t *Trainer) SetProgress(p float64) error {
	if math.IsNaN(p) || p < 0 {
		return fmt.Errorf("schedule progress %v: want 0 or more", p)
	}
	if t.cfg.Schedule != scheduleCosine {
		return nil
	}
	steps := float64(t.opt.T)
	switch {
	case p >= 1:
		t.cfg.TotalSteps = max(1, int(steps))
	case steps/p >= math.MaxInt32:
		t.cfg.TotalSteps = math.MaxInt32 // p is 0, or nearly: the start
	default:
		t.cfg.TotalSteps = max(1, int(math.Round(steps/p)))
	}
	return nil
}
