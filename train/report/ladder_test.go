package report

import (
	"reflect"
	"slices"
	"testing"
)

func TestFormatSeconds(t *testing.T) {
	for _, tc := range []struct {
		sec  float64
		want string
	}{{0, "0m00s"}, {59.6, "1m00s"}, {200, "3m20s"}, {3600, "1h00m"}, {3725, "1h02m"}} {
		if got := formatSeconds(tc.sec); got != tc.want {
			t.Errorf("formatSeconds(%v) = %q, want %q", tc.sec, got, tc.want)
		}
	}
}

// A ladder's report says how long its network players search a move.
func TestLadderBudget(t *testing.T) {
	for _, tc := range []struct {
		sims   int
		timeMS float64
		want   string
	}{{100, 0, "100 simulations"}, {0, 50, "50ms a move"}, {20, 50, "20 simulations or 50ms a move, whichever ends first"}} {
		if got := (&LadderReport{Simulations: tc.sims, TimeMS: tc.timeMS}).budget(); got != tc.want {
			t.Errorf("%d simulations, %vms: budget %q, want %q", tc.sims, tc.timeMS, got, tc.want)
		}
	}
}

// The chart of a ladder draws a curve a run, each with its run's snapshots
// in order, or one called "network" with one run.
func TestLadderCurves(t *testing.T) {
	long1, short1, long2 := LadderPoint{Iteration: 1, Run: "long"}, LadderPoint{Iteration: 1, Run: "short"}, LadderPoint{Iteration: 2, Run: "long"}
	several := &LadderReport{Runs: []LadderReportRun{{Name: "long"}, {Name: "short"}}, Snapshots: []LadderPoint{long1, short1, long2}}
	names, curves := several.curves()
	if !slices.Equal(names, []string{"long", "short"}) || !reflect.DeepEqual(curves, [][]LadderPoint{{long1, long2}, {short1}}) {
		t.Errorf("curves %v: %v", names, curves)
	}
	one := &LadderReport{Snapshots: []LadderPoint{{Iteration: 1}, {Iteration: 2}}}
	names, curves = one.curves()
	if !slices.Equal(names, []string{"network"}) || !reflect.DeepEqual(curves, [][]LadderPoint{one.Snapshots}) {
		t.Errorf("curves %v: %v", names, curves)
	}
}
