package parallel

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	errJob, errDone := errors.New("job failed"), errors.New("done failed")
	cases := []struct {
		name    string
		n, p    int
		failJob int // the job that fails, -1 for none
		failAt  int // the delivery done fails at, -1 for none
		want    error
	}{
		{"no jobs", 0, 3, -1, -1, nil},
		{"one at a time", 7, 1, -1, -1, nil},
		{"three at a time", 20, 3, -1, -1, nil},
		{"more workers than jobs", 2, 8, -1, -1, nil},
		{"p below 1 counts as 1", 4, 0, -1, -1, nil},
		{"a job fails", 50, 3, 5, -1, errJob},
		{"done fails", 50, 3, -1, 4, errDone},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var running, most, started atomic.Int32
			seen := map[int]int{}
			deliveries := 0
			err := Run(context.Background(), tc.n, tc.p, func(ctx context.Context, i int) (int, error) {
				started.Add(1)
				now := running.Add(1)
				defer running.Add(-1)
				for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
				}
				time.Sleep(time.Millisecond)
				if i == tc.failJob {
					return 0, errJob
				}
				return i * i, nil
			}, func(i, v int) error {
				if v != i*i {
					t.Errorf("job %d: result %d, want %d", i, v, i*i)
				}
				seen[i]++
				deliveries++
				if deliveries-1 == tc.failAt {
					return errDone
				}
				return nil
			})
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if limit := int32(max(tc.p, 1)); most.Load() > limit {
				t.Errorf("%d jobs at once, want at most %d", most.Load(), limit)
			}
			for i, k := range seen {
				if k != 1 {
					t.Errorf("job %d delivered %d times", i, k)
				}
			}
			if tc.want == nil && len(seen) != tc.n {
				t.Errorf("%d jobs delivered, want %d", len(seen), tc.n)
			}
			if tc.want != nil && started.Load() == int32(tc.n) {
				t.Errorf("all %d jobs started after an error", tc.n)
			}
		})
	}
}

func TestRunStopsWithContext(t *testing.T) {
	cause := errors.New("enough")
	cases := []struct {
		name   string
		cancel func(context.CancelCauseFunc)
		want   error
	}{
		{"canceled", func(c context.CancelCauseFunc) { c(nil) }, context.Canceled},
		{"with a cause", func(c context.CancelCauseFunc) { c(cause) }, cause},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var delivered atomic.Int32
			err := Run(ctx, math.MaxInt, 2, func(ctx context.Context, i int) (int, error) {
				select {
				case <-ctx.Done():
					return 0, context.Cause(ctx)
				case <-time.After(time.Millisecond):
					return i, nil
				}
			}, func(i, _ int) error {
				if delivered.Add(1) == 10 {
					tc.cancel(cancel)
				}
				return nil
			})
			if !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
		})
	}
}

// TestRunDeliversAfterStop checks that a job finishing after an error
// still reaches done: a journal of finished games loses none.
func TestRunDeliversAfterStop(t *testing.T) {
	errJob := errors.New("job failed")
	started, release := make(chan struct{}), make(chan struct{})
	var got []int
	err := Run(context.Background(), 2, 2, func(ctx context.Context, i int) (int, error) {
		if i == 0 {
			<-started
			defer close(release)
			return 0, errJob
		}
		close(started)
		<-release // finishes after job 0 failed, ignoring the stop
		return 1, nil
	}, func(i, _ int) error {
		got = append(got, i)
		return nil
	})
	if !errors.Is(err, errJob) || len(got) != 1 || got[0] != 1 {
		t.Errorf("error %v, delivered %v: want %v and job 1", err, got, errJob)
	}
}
