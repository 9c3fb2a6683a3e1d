// Package bench is what "deathstacks bench" measures, each a line of
// items per second timed by [Measure]: the searches ([Search]) and the
// network's graphs, batching server and training step ([Network]), on
// positions of seeded random games.
package bench

import (
	"context"
	"time"
)

// Measure calls run repeatedly for about dur after one warm-up call (which
// compiles the graphs) and returns the items per second, run returning the
// items of a call; an end of ctx stops it with ctx's error.
func Measure(ctx context.Context, dur time.Duration, run func() (int, error)) (float64, error) {
	if _, err := run(); err != nil {
		return 0, err
	}
	items := 0
	start := time.Now()
	for time.Since(start) < dur {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		n, err := run()
		if err != nil {
			return 0, err
		}
		items += n
	}
	return float64(items) / time.Since(start).Seconds(), nil
}
