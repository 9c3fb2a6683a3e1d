package model

import (
	"errors"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/env"
)

// evaluator is mcts.Evaluator's method set, restated so that model does not
// import mcts even in tests.
type evaluator interface {
	Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error
}

var (
	_ evaluator = (*Server)(nil)
	_ evaluator = (*Network)(nil)
)

// checkAgainst compares evaluations with n's direct ones; different batch
// compositions run different compiled graphs, so allow rounding.
func checkAgainst(t *testing.T, n *Network, samples []Sample, priors [][]float32, values []float32) {
	t.Helper()
	wantP, wantV := evaluateAll(t, n, samples)
	for i := range samples {
		if math.Abs(float64(values[i]-wantV[i])) > 1e-5 {
			t.Errorf("position %d: value %v, direct %v", i, values[i], wantV[i])
		}
		for j := range priors[i] {
			if math.Abs(float64(priors[i][j]-wantP[i][j])) > 1e-5 {
				t.Errorf("position %d: prior %d is %v, direct %v", i, j, priors[i][j], wantP[i][j])
				break
			}
		}
	}
}

func TestServerManyClients(t *testing.T) {
	n, _ := New(tinyConfig, seeded(1))
	samples := samplePositions(seeded(2), 24)
	for _, cfg := range []ServerConfig{
		{MaxBatch: 8, Workers: 1},
		{MaxBatch: 5, Workers: 2, FlushDelay: 50 * time.Microsecond},
	} {
		t.Run("", func(t *testing.T) {
			s, err := NewServer(n, cfg)
			if err != nil {
				t.Fatal(err)
			}
			const clients, rounds = 12, 5
			var wg sync.WaitGroup
			for c := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for r := range rounds {
						// Requests of 1 to 7 positions, some larger than a batch.
						lo := (c + r) % 17
						part := samples[lo : lo+1+(c*r)%7]
						obs, legal, priors, values := evalArgs(part)
						if err := s.Evaluate(obs, legal, priors, values); err != nil {
							t.Error(err)
							return
						}
						checkAgainst(t, n, part, priors, values)
					}
				}()
			}
			wg.Wait()
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			st := s.Stats()
			if st.Batches == 0 || st.Positions < clients*rounds {
				t.Errorf("stats %+v", st)
			}
			t.Logf("%+v: mean batch %.1f", cfg, float64(st.Positions)/float64(st.Batches))
		})
	}
}

func TestServerClose(t *testing.T) {
	n, _ := New(tinyConfig, seeded(1))
	s, err := NewServer(n, ServerConfig{MaxBatch: 4, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	obs, legal, priors, values := evalArgs(samplePositions(seeded(2), 1))
	if err := s.Evaluate(obs, legal, priors, values); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := s.Evaluate(obs, legal, priors, values); !errors.Is(err, ErrClosed) {
		t.Errorf("Evaluate after Close: %v", err)
	}
	if err := s.Evaluate(obs[1:], legal, priors, values); err == nil {
		t.Error("bad arguments accepted")
	}
	if _, err := NewServer(n, ServerConfig{MaxBatch: 0, Workers: 1}); err == nil {
		t.Error("max batch 0 accepted")
	}
}

// TestServerSplitsLoneRequests: a lone caller's request is run in parts
// on all workers, and the parts' rows are bit for bit those of the whole
// batch on one worker.
func TestServerSplitsLoneRequests(t *testing.T) {
	for _, cfg := range []Config{tinyConfig, DefaultConfig()} {
		t.Run(cfg.String(), func(t *testing.T) { testServerSplits(t, cfg) })
	}
}

func testServerSplits(t *testing.T, cfg Config) {
	n, err := New(cfg, seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	samples := samplePositions(seeded(2), 24)
	one, err := NewServer(n, ServerConfig{MaxBatch: 16, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	for _, tc := range []struct {
		name           string
		workers, rows  int
		batchesPerCall int64
	}{
		{"2 workers, 8 rows", 2, 8, 2},
		{"3 workers, 19 rows", 3, 19, 3},
		{"3 workers, 9 rows: 2 parts of 4 or more", 3, 9, 2},
		{"2 workers, 7 rows: too few to split", 2, 7, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewServer(n, ServerConfig{MaxBatch: 16, Workers: tc.workers})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			const calls = 5
			for c := range calls {
				part := samples[c : c+tc.rows]
				obs, legal, priors, values := evalArgs(part)
				if err := s.Evaluate(obs, legal, priors, values); err != nil {
					t.Fatal(err)
				}
				_, _, wantP, wantV := evalArgs(part)
				if err := one.Evaluate(obs, legal, wantP, wantV); err != nil {
					t.Fatal(err)
				}
				for i := range part {
					if values[i] != wantV[i] || !slices.Equal(priors[i], wantP[i]) {
						t.Fatalf("call %d, position %d: value %v, priors %v; on one worker %v, %v", c, i, values[i], priors[i][:2], wantV[i], wantP[i][:2])
					}
				}
			}
			if st := s.Stats(); st.Batches != calls*tc.batchesPerCall || st.Positions != int64(calls*tc.rows) {
				t.Errorf("stats %+v, want %d batches of %d positions in all", st, calls*tc.batchesPerCall, calls*tc.rows)
			}
		})
	}
}

// TestServerWhileTraining runs training steps while clients evaluate: no
// race, and once the steps are done the server uses the new weights.
func TestServerWhileTraining(t *testing.T) {
	n, _ := New(tinyConfig, seeded(1))
	tr, err := NewTrainer(n, tinyTrainConfig(4))
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(n, ServerConfig{MaxBatch: 4, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	samples := samplePositions(seeded(3), 8)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			part := samples[c : c+2]
			obs, legal, priors, values := evalArgs(part)
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := s.Evaluate(obs, legal, priors, values); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for range 5 {
		if _, err := tr.Step(samples[:4]); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	obs, legal, priors, values := evalArgs(samples)
	if err := s.Evaluate(obs, legal, priors, values); err != nil {
		t.Fatal(err)
	}
	checkAgainst(t, n.Clone(), samples, priors, values)
}
