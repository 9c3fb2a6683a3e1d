package train

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/train/checkpoint"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/remotegames"
)

// countingSource is a remotegames.Source of numbered games of one sample each
// (the number in the sample's first observation value); its cursor is the
// number of the last game taken. A Collect made while the run writes the
// checkpoint of iteration v (the first of the iteration after, whose
// request has First set and Version v) waits until that checkpoint is
// written, so that its games enter the buffer during the write.
type countingSource struct {
	dir   string
	mu    sync.Mutex
	calls []collectCall
}

// collectCall is a request and the cursor of the newest checkpoint on
// disk when it came.
type collectCall struct {
	req    remotegames.Request
	onDisk int
}

// countingGames is how many games the source has before it waits for a
// request's MinGames (its games come at once, so that the run's feeding
// stays finite).
const countingGames = 60

func countingSample(n int) Sample {
	obs := make([]float32, env.ObservationSize)
	obs[0] = float32(n)
	return Sample{Obs: obs, Legal: []env.Action{0}, Policy: []float32{1}}
}

func (s *countingSource) Collect(ctx context.Context, req remotegames.Request, add func(Sample) error) (remotegames.Result, error) {
	cur := 0
	if req.Cursor != nil {
		if err := json.Unmarshal(req.Cursor, &cur); err != nil {
			return remotegames.Result{}, err
		}
	}
	s.mu.Lock()
	s.calls = append(s.calls, collectCall{req: req, onDisk: newestCursor(s.dir)})
	s.mu.Unlock()
	n := min(2, max(0, countingGames-cur))
	n = max(n, req.MinGames)
	res := remotegames.Result{Games: n, Positions: n}
	for range n {
		cur++
		if err := add(countingSample(cur)); err != nil {
			return remotegames.Result{}, err
		}
	}
	res.Cursor, _ = json.Marshal(cur)
	if req.First && req.Version > 0 {
		path := checkpoint.Path(s.dir, req.Version)
		for _, err := os.Stat(path); err != nil; _, err = os.Stat(path) {
			select {
			case <-ctx.Done():
				return res, ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	return res, nil
}

// newestCursor returns the cursor of the newest checkpoint in dir; 0
// when there is none.
func newestCursor(dir string) int {
	all, _ := checkpoint.List(dir)
	if len(all) == 0 {
		return 0
	}
	st, _, err := checkpoint.Open(all[len(all)-1].Path)
	cur := 0
	if err == nil && st.Remote != nil {
		_ = json.Unmarshal(st.Remote, &cur)
	}
	return cur
}

// TestRemoteGamesWhileSaving checks that the run takes remote games while
// it writes a checkpoint: they enter the buffer but not that checkpoint,
// whose buffer holds exactly the games up to its cursor; they count in the
// next iteration; the source is never told a checkpoint is saved before
// it is; and each iteration's figures start once.
func TestRemoteGamesWhileSaving(t *testing.T) {
	const iterations = 3
	dir := t.TempDir()
	cfg := plainSmokeConfig(t, dir)
	cfg.Output.KeepLast = iterations
	cfg.SelfPlay.GamesPerIteration = 20
	src := &countingSource{dir: dir}
	if _, err := Run(context.Background(), cfg, RunOptions{Iterations: iterations, Remote: src, NoSelfPlay: true}); err != nil {
		t.Fatal(err)
	}
	ms, err := metrics.Read(metricsPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	counted := 0
	for v := 1; v <= iterations; v++ {
		counted += ms[v-1].RemoteGames
		ck, err := checkpoint.Load(checkpoint.Path(dir, v), cfg)
		if err != nil {
			t.Fatal(err)
		}
		cur := 0
		if err := json.Unmarshal(ck.State.Remote, &cur); err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprintf("checkpoint %d", v), func(t *testing.T) {
			if cur != counted {
				t.Errorf("cursor %d, metrics count %d games up to it", cur, counted)
			}
			if ck.Replay.Len() != cur {
				t.Fatalf("%d samples in the buffer, want the %d games up to the cursor", ck.Replay.Len(), cur)
			}
			for i := range cur {
				if s, _ := ck.Replay.At(i); s.Obs[0] != float32(i+1) {
					t.Fatalf("sample %d is game %v, want %d", i, s.Obs[0], i+1)
				}
			}
		})
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	first := map[int]int{}
	during := 0 // Collects made while a checkpoint was written
	for _, c := range src.calls {
		saved := 0
		if c.req.Saved != nil {
			_ = json.Unmarshal(c.req.Saved, &saved)
		}
		if saved > c.onDisk {
			t.Errorf("a Collect told of a checkpoint at game %d, the newest on disk is at %d", saved, c.onDisk)
		}
		if c.req.First {
			first[c.req.Version]++
			if c.req.Version > 0 {
				during++
			}
		}
	}
	for v := range iterations {
		if first[v] != 1 {
			t.Errorf("network %d: %d Collects start an iteration's figures, want 1", v, first[v])
		}
	}
	if during != iterations-1 {
		t.Errorf("%d Collects while a checkpoint was written, want %d (none after the last)", during, iterations-1)
	}
}

// readingAhead is a countingSource that reads ahead: it records each
// ReadAhead's cursor and how many Collects came before it.
type readingAhead struct {
	countingSource
	reads []readAheadCall
}

type readAheadCall struct {
	cursor   string
	collects int
}

func (s *readingAhead) ReadAhead(cursor json.RawMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads = append(s.reads, readAheadCall{cursor: string(cursor), collects: len(s.calls)})
	return nil
}

// TestRunReadsAheadFirst: a source that reads ahead is told where to read
// from before the run's first Collect: nowhere yet for a new run, the
// checkpoint's cursor for a resumed one (which the first Collect hands it
// again).
func TestRunReadsAheadFirst(t *testing.T) {
	dir := t.TempDir()
	cfg := plainSmokeConfig(t, dir)
	cfg.SelfPlay.GamesPerIteration = 4
	for _, tc := range []struct {
		name   string
		resume bool
	}{
		{"new run", false},
		{"resumed", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &readingAhead{countingSource: countingSource{dir: dir}}
			want := ""
			if tc.resume {
				st, _, err := checkpoint.Open(checkpoint.Path(dir, 1))
				if err != nil {
					t.Fatal(err)
				}
				want = string(st.Remote)
			}
			opts := RunOptions{Iterations: 1, Remote: src, NoSelfPlay: true, Resume: tc.resume}
			if tc.resume {
				opts.Iterations = 2
			}
			if _, err := Run(context.Background(), cfg, opts); err != nil {
				t.Fatal(err)
			}
			src.mu.Lock()
			defer src.mu.Unlock()
			if len(src.reads) != 1 || src.reads[0].collects != 0 || src.reads[0].cursor != want {
				t.Fatalf("ReadAhead calls %+v, want one with cursor %q before any Collect", src.reads, want)
			}
			if len(src.calls) == 0 || string(src.calls[0].req.Cursor) != want {
				t.Errorf("the first Collect's cursor is not the one read ahead from (%q)", want)
			}
		})
	}
}
