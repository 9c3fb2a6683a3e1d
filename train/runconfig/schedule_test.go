package runconfig

import (
	"math"
	"testing"
	"time"
)

func TestRunProgress(t *testing.T) {
	tests := []struct {
		name       string
		iterations int
		limit      time.Duration
		elapsed    float64
		done       float64
		want       float64
	}{
		{"time: start", 0, time.Hour, 0, 0, 0},
		{"time: a quarter", 0, time.Hour, 900, 7, 0.25},
		{"time: over", 0, time.Hour, 4000, 9, 4000.0 / 3600},
		{"iterations: half", 10, 0, 1e6, 5, 0.5},
		{"iterations: within one", 10, 0, 0, 2.25, 0.225},
		{"both: time ahead", 100, time.Hour, 1800, 10, 0.5},
		{"both: iterations ahead", 20, time.Hour, 1800, 15, 0.75},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Config{Iterations: tc.iterations, TimeLimit: tc.limit}
			if got := c.RunProgress(tc.elapsed, tc.done); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("RunProgress(%v, %v) = %v, want %v", tc.elapsed, tc.done, got, tc.want)
			}
		})
	}
}

func TestSchedulePlan(t *testing.T) {
	tests := []struct {
		name string
		plan SchedulePlan
		q    float64
		want float64
	}{
		{"new run: start", SchedulePlan{}, 0, 0},
		{"new run: middle", SchedulePlan{}, 0.4, 0.4},
		{"new run: end", SchedulePlan{}, 1, 1},
		{"same plan resumed", ResumePlan(0.3, 0.3, 5), 0.65, 0.65},
		{"old checkpoint resumed", ResumePlan(0, 0.3, 5), 0.65, 0.65},
		{"longer run: at the resume", ResumePlan(0.8, 0.4, 5), 0.4, 0.8},
		{"longer run: half the rest", ResumePlan(0.8, 0.4, 5), 0.7, 0.9},
		{"longer run: end", ResumePlan(0.8, 0.4, 5), 1, 1},
		{"finished run extended", ResumePlan(1, 0.5, 5), 0.75, 1},
		{"shorter run", ResumePlan(0.5, 0.75, 5), 0.875, 0.75},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.plan.Progress(tc.q); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("%+v.Progress(%v) = %v, want %v", tc.plan, tc.q, got, tc.want)
			}
		})
	}
}
