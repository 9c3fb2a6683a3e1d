package stepped

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/internal/testgames"
)

// softmaxPriors is a PriorsFunc: the softmax of the legal logits.
func softmaxPriors(dst, logits []float32, legal []env.Action) error {
	top := math.Inf(-1)
	for _, a := range legal {
		top = max(top, float64(logits[a]))
	}
	if math.IsNaN(top) || math.IsInf(top, 0) {
		return errors.New("logits are not finite")
	}
	var sum float64
	for j, a := range legal {
		e := math.Exp(float64(logits[a]) - top)
		dst[j] = float32(e)
		sum += e
	}
	for j := range legal {
		dst[j] /= float32(sum)
	}
	return nil
}

// hashRow writes the logits and value a caller's test network gives the
// observation obs: numbers hashed from it, the same wherever it is
// evaluated.
func hashRow(logits []float32, value *float32, obs []float32) {
	h := fnv.New64a()
	h.Write(unsafe.Slice((*byte)(unsafe.Pointer(&obs[0])), len(obs)*4))
	x := h.Sum64()
	for a := range logits {
		logits[a] = float32((x>>(a%50)^uint64(a))%7) / 3
	}
	*value = float32(int(x%201)-100) / 100
}

// rowEvaluator is the mcts.Evaluator a search sees when the caller's network
// is hashRow and its priors are softmaxPriors.
type rowEvaluator struct{}

func (rowEvaluator) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	logits := make([]float32, env.NumActions)
	for i := range values {
		hashRow(logits, &values[i], obs[i*env.ObservationSize:(i+1)*env.ObservationSize])
		if err := softmaxPriors(priors[i], logits, legal[i]); err != nil {
			return err
		}
	}
	return nil
}

// callerLoop drives r to its end with hashRow as the caller's network,
// over buffers for capacity positions, by Round or by Next and Feed, and
// returns the batch sizes.
func callerLoop(t testing.TB, r *Run, capacity int, rounds bool) []int {
	obs := make([]float32, capacity*env.ObservationSize)
	mask := make([]bool, capacity*env.NumActions)
	logits := make([]float32, capacity*env.NumActions)
	values := make([]float32, capacity)
	var sizes []int
	n := 0
	for {
		var err error
		if rounds {
			n, err = r.Round(logits[:n*env.NumActions], values[:n], obs, mask)
		} else {
			if n > 0 {
				if err := r.Feed(logits[:n*env.NumActions], values[:n]); err != nil {
					t.Fatal(err)
				}
			}
			n, err = r.Next(obs, mask)
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return sizes
		}
		sizes = append(sizes, n)
		for i := range n {
			hashRow(logits[i*env.NumActions:(i+1)*env.NumActions], &values[i], obs[i*env.ObservationSize:(i+1)*env.ObservationSize])
		}
	}
}

// steppedGames returns n positions of random games.
func steppedGames(t testing.TB, n int) []*env.Game {
	games := make([]*env.Game, n)
	for i := range games {
		games[i] = testgames.RandomGame(t, uint64(i)+1, 2*i)
	}
	return games
}

// searchWorks returns works that search each game with a player of its
// own (cfg, seed i), writing the decisions into out.
func searchWorks(t testing.TB, games []*env.Game, cfg mcts.Config, out []mcts.Decision) []Work {
	works := make([]Work, len(games))
	for i, g := range games {
		works[i] = func(eval mcts.Evaluator) error {
			p, err := mcts.NewPUCTPlayer(eval, cfg, uint64(i))
			if err != nil {
				return err
			}
			if out[i], err = p.Choose(g); err != nil {
				return fmt.Errorf("position %d: %w", i, err)
			}
			return nil
		}
	}
	return works
}

// searchConfigs are a PUCT and a Gumbel search of the tests.
func searchConfigs() (puct, gumbel mcts.Config) {
	puct = mcts.DefaultConfig()
	puct.Simulations = 64
	gumbel = mcts.DefaultConfig()
	gumbel.Gumbel = true
	gumbel.Simulations, gumbel.GumbelConsidered, gumbel.BatchSize = 48, 8, 4
	return puct, gumbel
}

// directDecisions are the decisions of searchWorks on rowEvaluator
// itself, one search after another.
func directDecisions(t testing.TB, games []*env.Game, cfg mcts.Config) []mcts.Decision {
	want := make([]mcts.Decision, len(games))
	for _, w := range searchWorks(t, games, cfg, want) {
		if err := w(rowEvaluator{}); err != nil {
			t.Fatal(err)
		}
	}
	return want
}

// sameDecisions reports the decisions of got that differ from want's.
func sameDecisions(t testing.TB, got, want []mcts.Decision) {
	t.Helper()
	for i := range want {
		if a, b := fmt.Sprint(got[i]), fmt.Sprint(want[i]); a != b {
			t.Errorf("position %d: got\n%s\nwant\n%s", i, a, b)
		}
	}
}

func TestSteppedSearchesAsTheirEvaluatorWould(t *testing.T) {
	puct, gumbel := searchConfigs()
	for _, tc := range []struct {
		name      string
		cfg       mcts.Config
		positions int
		// capacity is the caller's buffers' room, in batches of BatchSize:
		// fewer than the searches make them take turns.
		capacity int
		rounds   bool
	}{
		{"puct/all", puct, 7, 7, true},
		{"puct/fewer rows", puct, 7, 2, false},
		{"gumbel/all", gumbel, 5, 5, false},
		{"gumbel/one search a round", gumbel, 5, 1, true},
		{"no positions", puct, 0, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			games := steppedGames(t, tc.positions)
			want := directDecisions(t, games, tc.cfg)
			got := make([]mcts.Decision, len(games))
			r := New(searchWorks(t, games, tc.cfg, got), tc.cfg.BatchSize, softmaxPriors)
			sizes := callerLoop(t, r, tc.capacity*tc.cfg.BatchSize, tc.rounds)
			if err := r.Err(); err != nil || !r.Over() {
				t.Fatalf("after the last round: over %v, error %v", r.Over(), err)
			}
			sameDecisions(t, got, want)
			for _, n := range sizes {
				if n > tc.capacity*tc.cfg.BatchSize {
					t.Errorf("a batch of %d positions in room for %d", n, tc.capacity*tc.cfg.BatchSize)
				}
			}
		})
	}
}

// An open run searches the works added to it as they come, wave after
// wave, as their evaluator would; a work added during a round joins it;
// idle between waves, it forgets the slots of works that returned, and
// once aborted it takes no more.
func TestOpenSteppedTakesWorksAsTheyCome(t *testing.T) {
	cfg := mcts.DefaultConfig()
	cfg.Simulations = 48
	games := steppedGames(t, 7)
	want := directDecisions(t, games, cfg)
	got := make([]mcts.Decision, len(games))
	works := searchWorks(t, games, cfg, got)
	r := NewOpen(cfg.BatchSize, softmaxPriors)
	if r.Ready() {
		t.Error("ready with no works")
	}
	// The last work is added by the one before when it returns, in a
	// round: it joins that round, the run never idle in between.
	fifth, last := works[5], works[6]
	works[5] = func(eval mcts.Evaluator) error {
		err := fifth(eval)
		r.Add(last)
		return err
	}
	for _, wave := range [][]Work{works[:3], works[3:6]} {
		done := make(chan bool)
		go func() {
			for _, w := range wave {
				if !r.Add(w) {
					t.Error("a work refused by an open run")
				}
			}
			close(done)
		}()
		<-done
		if !r.Ready() {
			t.Error("not ready with works added")
		}
		callerLoop(t, r, 2*cfg.BatchSize, false)
		if r.Over() || r.Ready() {
			t.Errorf("idle after a wave: over %v, ready %v, want neither", r.Over(), r.Ready())
		}
	}
	if n, err := r.Next(make([]float32, cfg.BatchSize*env.ObservationSize), make([]bool, cfg.BatchSize*env.NumActions)); n != 0 || err != nil || len(r.slots) != 0 {
		t.Errorf("an idle round: %d leaves, error %v, %d slots kept, want none", n, err, len(r.slots))
	}
	for i := range want {
		if a, b := fmt.Sprint(got[i]), fmt.Sprint(want[i]); a != b {
			t.Errorf("position %d: stepped\n%s\nwant\n%s", i, a, b)
		}
	}
	r.Abort()
	if r.Add(works[0]) || !r.Over() {
		t.Error("an aborted run takes works")
	}
}

func TestSteppedRefusesBadCalls(t *testing.T) {
	cfg := mcts.DefaultConfig()
	cfg.Simulations, cfg.BatchSize = 20, 4
	rows := func(n int) ([]float32, []bool) {
		return make([]float32, n*env.ObservationSize), make([]bool, n*env.NumActions)
	}
	type call func(r *Run) error
	// last is the size of the batch Next returned last; a feed of n < 0
	// feeds that many.
	last := 0
	next := func(n int) call {
		return func(r *Run) error {
			obs, mask := rows(n)
			var err error
			last, err = r.Next(obs, mask)
			return err
		}
	}
	feed := func(n int, value, logit float32) call {
		return func(r *Run) error {
			if n < 0 {
				n = last
			}
			logits, values := make([]float32, n*env.NumActions), make([]float32, n)
			for i := range values {
				values[i] = value
			}
			for i := range logits {
				logits[i] = logit
			}
			return r.Feed(logits, values)
		}
	}
	nan := float32(math.NaN())
	for _, tc := range []struct {
		name  string
		calls []call
		want  string
	}{
		{"buffers smaller than a search's batch", []call{next(3)}, "want at least batch_size, 4"},
		{"ragged buffers", []call{func(r *Run) error {
			_, err := r.Next(make([]float32, 5), make([]bool, 4*env.NumActions))
			return err
		}}, "observation values"},
		{"feed before next", []call{feed(4, 0, 0)}, "no batch to feed"},
		{"next before feed", []call{next(8), next(8)}, "was not fed back"},
		{"feed of another size", []call{next(8), feed(3, 0, 0)}, "3 positions for a batch of 2"},
		{"feed twice", []call{next(8), feed(-1, 0, 0), feed(-1, 0, 0)}, "no batch to feed"},
		{"value out of range", []call{next(8), feed(-1, 1.0001, 0), next(8)}, "the evaluator returned 1.0001 for the value of position 0 of the batch: values must be finite, in [-1, 1]"},
		{"NaN value", []call{next(8), feed(-1, nan, 0), next(8)}, "returned NaN for the value"},
		{"NaN logit", []call{next(8), feed(-1, 0, nan), next(8)}, "returned NaN for the logit of legal action"},
		{"next after a failure", []call{next(8), feed(-1, nan, 0), next(8), next(8)}, "returned NaN for the value"},
		{"a later round's bad value", []call{next(8), feed(-1, 0, 0), next(8), feed(-1, -2, 0), next(8)}, "returned -2 for the value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			games := steppedGames(t, 2)
			r := New(searchWorks(t, games, cfg, make([]mcts.Decision, 2)), cfg.BatchSize, softmaxPriors)
			defer r.Abort()
			var err error
			for _, c := range tc.calls {
				if err = c(r); err != nil {
					break
				}
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}

func TestSteppedEndsWithTheWorksErrorsAndAborts(t *testing.T) {
	cfg := mcts.DefaultConfig()
	cfg.Simulations, cfg.BatchSize = 30, 2
	boom := errors.New("boom")
	works, stopped := make([]Work, 6), make([]error, 6)
	for i := range works {
		works[i] = func(eval mcts.Evaluator) error {
			if i%2 == 1 {
				return fmt.Errorf("work %d: %w", i, boom)
			}
			p, err := mcts.NewPUCTPlayer(eval, cfg, 1)
			if err != nil {
				return err
			}
			_, err = p.Choose(env.NewGame(env.DefaultRules()))
			stopped[i] = err
			return err
		}
	}
	r := New(works, cfg.BatchSize, softmaxPriors)
	obs, mask := make([]float32, 12*env.ObservationSize), make([]bool, 12*env.NumActions)
	if _, err := r.Next(obs, mask); !errors.Is(err, boom) || !strings.Contains(err.Error(), "work 1") {
		t.Fatalf("error %v, want the failed works'", err)
	}
	if !r.Over() || !errors.Is(r.Err(), boom) {
		t.Errorf("after a failed work: over %v, error %v", r.Over(), r.Err())
	}
	for i := 0; i < len(stopped); i += 2 {
		if err := stopped[i]; !errors.Is(err, ErrAborted) {
			t.Errorf("a search still going got %v, want ErrAborted", err)
		}
	}

	for _, abandon := range []bool{false, true} {
		r = New(searchWorks(t, steppedGames(t, 3), cfg, make([]mcts.Decision, 3)), cfg.BatchSize, softmaxPriors)
		if n, err := r.Next(obs, mask); n == 0 || err != nil {
			t.Fatalf("first round: %d leaves, error %v", n, err)
		}
		if err := r.Err(); err == nil || !strings.Contains(err.Error(), "under way") {
			t.Errorf("Err during a run: %v", err)
		}
		if abandon {
			r.Abandon()
		} else {
			r.Abort()
		}
		if !r.Over() || !errors.Is(r.Err(), ErrAborted) {
			t.Errorf("abandon %v: over %v, error %v", abandon, r.Over(), r.Err())
		}
		if _, err := r.Next(obs, mask); !errors.Is(err, ErrAborted) {
			t.Errorf("abandon %v: next after the abort: %v", abandon, err)
		}
	}
}

func BenchmarkStepped(b *testing.B) {
	cfg := mcts.DefaultConfig()
	cfg.Simulations = 64
	games := steppedGames(b, 16)
	out := make([]mcts.Decision, len(games))
	b.ReportAllocs()
	for b.Loop() {
		r := New(searchWorks(b, games, cfg, out), cfg.BatchSize, softmaxPriors)
		callerLoop(b, r, len(games)*cfg.BatchSize, true)
	}
	b.ReportMetric(float64(b.N*len(games)*cfg.Simulations)/b.Elapsed().Seconds(), "sims/s")
}
