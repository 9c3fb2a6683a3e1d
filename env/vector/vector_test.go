package vector

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
)

// newTestVector returns a Vector after its reset with seed 1, with buffers
// for all its outputs.
func newTestVector(tb testing.TB, n int, o Options) (*Vector, *Buffers) {
	tb.Helper()
	v, err := New(n, o)
	if err != nil {
		tb.Fatal(err)
	}
	b := &Buffers{
		Observations: make([]float32, n*env.ObservationSize), Masks: make([]bool, n*env.NumActions),
		Rewards: make([]float32, n), Terminations: make([]bool, n), Truncations: make([]bool, n),
		Infos: make([]int64, n*InfoColumns),
	}
	if err := v.Reset(1, b); err != nil {
		tb.Fatal(err)
	}
	return v, b
}

// randomOpponent plays uniformly random legal moves from its seed; its
// episodes counts its Reset calls and closed its Close calls.
type randomOpponent struct {
	rng      *rand.Rand
	episodes int
	closed   int
}

func newRandomOpponent(seed uint64) (Opponent, error) {
	return &randomOpponent{rng: rand.New(rand.NewPCG(seed, 0))}, nil
}

func (o *randomOpponent) Reset() { o.episodes++ }

func (o *randomOpponent) Move(g *env.Game) (env.Move, error) {
	moves := g.LegalMoves(nil)
	return moves[o.rng.IntN(len(moves))], nil
}

func (o *randomOpponent) Close() error { o.closed++; return nil }

// TestGoldenVector is the reference trajectory of the vector environment
// without an opponent: seeded episodes with random openings and
// auto-resets, every step's actions, observations, masks, rewards, flags
// and infos reduced to a digest (the library's golden test holds the
// cases with its players as opponents). A change that keeps the
// environment's trajectories must keep the digest; one that means to
// change them records the new digest with the reason in its commit.
func TestGoldenVector(t *testing.T) {
	opts := env.DefaultOptions()
	opts.Rules.MaxPlies = 24
	opts.OpeningPlies = 2
	const n = 4
	v, b := newTestVector(t, n, Options{Env: opts})
	if err := v.Reset(17, b); err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	actions := make([]env.Action, n)
	wide := make([]int64, n)
	for range 60 {
		for _, x := range []any{b.Observations, b.Masks, b.Rewards, b.Terminations, b.Truncations, b.Infos} {
			if err := binary.Write(h, binary.LittleEndian, x); err != nil {
				t.Fatal(err)
			}
		}
		if err := v.Sample(actions); err != nil {
			t.Fatal(err)
		}
		for i, a := range actions {
			wide[i] = int64(a)
		}
		if err := binary.Write(h, binary.LittleEndian, wide); err != nil {
			t.Fatal(err)
		}
		if err := v.Step(actions, b); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := hex.EncodeToString(h.Sum(nil)[:8]), "47f6dbf8f98dc4ac"; got != want {
		t.Errorf("digest %s, want %s", got, want)
	}
}

// TestVectorMatchesEnv steps a Vector and single environments alike and
// compares what they deliver, auto-resets included.
func TestVectorMatchesEnv(t *testing.T) {
	opts := env.DefaultOptions()
	opts.Rules.MaxPlies = 10
	const n = 3
	v, b := newTestVector(t, n, Options{Env: opts})
	singles := make([]*env.Env, n)
	for i := range singles {
		singles[i], _ = env.NewEnv(opts)
		if _, err := singles[i].ResetInto(env.MixSeed(1, uint64(i), 0), env.ResetOptions{}, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	obs, mask := make([]float32, env.ObservationSize), make([]bool, env.NumActions)
	actions := make([]env.Action, n)
	episodes := make([]uint64, n)
	pending := make([]bool, n)
	for step := range 40 {
		for i, e := range singles {
			if err := e.ObserveInto(obs, mask); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(obs, row(b.Observations, i, env.ObservationSize)) || !slices.Equal(mask, row(b.Masks, i, env.NumActions)) {
				t.Fatalf("step %d, environment %d: observation or mask differs", step, i)
			}
		}
		if err := v.Sample(actions); err != nil {
			t.Fatal(err)
		}
		if err := v.Step(actions, b); err != nil {
			t.Fatal(err)
		}
		for i, e := range singles {
			if pending[i] {
				episodes[i]++
				if _, err := e.ResetInto(env.MixSeed(1, uint64(i), episodes[i]), env.ResetOptions{}, nil, nil); err != nil {
					t.Fatal(err)
				}
				pending[i] = false
				continue
			}
			reward, term, trunc, err := e.StepInto(actions[i], nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if reward != b.Rewards[i] || term != b.Terminations[i] || trunc != b.Truncations[i] {
				t.Fatalf("step %d, environment %d: reward or flags differ", step, i)
			}
			pending[i] = term || trunc
		}
	}
}

func TestVectorRefusals(t *testing.T) {
	redMove := mustAction(t, "a6-2-a4")
	blueMove := mustAction(t, "a1-1-a2")
	tests := []struct {
		name    string
		actions []env.Action
		want    string
	}{
		{"too few actions", []env.Action{redMove}, "1 actions for 2 environments"},
		{"out of range", []env.Action{redMove, env.NumActions}, "environment 1: action 6912: out of range"},
		{"illegal", []env.Action{blueMove, redMove}, "environment 0: action 0: move a1-1-a2: a1 is controlled by blue"},
		{"negative", []env.Action{-1, -2}, "environment 0: action -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, b := newTestVector(t, 2, Options{Env: env.DefaultOptions()})
			before := slices.Clone(b.Observations)
			err := v.Step(tt.actions, b)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if !slices.Equal(before, b.Observations) || v.Game(0).Position() != v.Game(1).Position() {
				t.Fatal("a refused step changed the environments")
			}
		})
	}
	bad := env.DefaultOptions()
	bad.OpeningPlies = -1
	for _, c := range []struct {
		name string
		n    int
		o    Options
		want string
	}{
		{"no environments", 0, Options{Env: env.DefaultOptions()}, "0 environments: want 1 to 1048576"},
		{"too many", maxEnvs + 1, Options{Env: env.DefaultOptions()}, "want 1 to 1048576"},
		{"agent colours", 1, Options{Env: env.DefaultOptions(), Agent: 3}, "agent colour 3"},
		{"options", 1, Options{Env: bad}, "opening_plies"},
	} {
		if _, err := New(c.n, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	v, err := New(1, Options{Env: env.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Step([]env.Action{0}, &Buffers{}); err == nil || !strings.Contains(err.Error(), "reset first") {
		t.Errorf("step before reset: %v", err)
	}
	if err := v.Reset(0, &Buffers{Observations: make([]float32, 3)}); err == nil || !strings.Contains(err.Error(), "observations has 3") {
		t.Errorf("a short buffer: %v", err)
	}
	if err := v.Sample(make([]env.Action, 2)); err == nil || !strings.Contains(err.Error(), "2 actions for 1") {
		t.Errorf("sample into a wrong buffer: %v", err)
	}
}

// TestVectorParallelRecoversPanics checks that a panic in any worker,
// the caller's own share or another's, one per core or one per
// environment, comes back as that environment's error rather than ending
// the process.
func TestVectorParallelRecoversPanics(t *testing.T) {
	const n = 8
	v, _ := newTestVector(t, n, Options{Env: env.DefaultOptions()})
	for _, c := range []struct {
		perEnv bool
		bad    int
	}{{false, 0}, {false, n - 1}, {true, 0}, {true, n - 1}} {
		t.Run(fmt.Sprintf("per environment %v, environment %d", c.perEnv, c.bad), func(t *testing.T) {
			v.opts.OpponentWaits = c.perEnv
			bad := c.bad
			ran := make([]bool, n)
			err := v.parallel(func(i int) error {
				ran[i] = true
				if i == bad {
					panic("boom")
				}
				return nil
			})
			want := fmt.Sprintf("environment %d: internal error (please report): boom", bad)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v, want %q", err, want)
			}
			if slices.Contains(ran, false) {
				t.Errorf("environments run: %v, want all", ran)
			}
		})
	}
}

// failingOpponent's moves fail, or are illegal ones.
type failingOpponent struct{ illegal env.Move }

func (failingOpponent) Reset() {}

func (o failingOpponent) Move(g *env.Game) (env.Move, error) {
	if o.illegal != (env.Move{}) {
		return o.illegal, nil
	}
	return env.Move{}, errors.New("no move")
}

// TestVectorOpponentErrors checks that an opponent's failure, in making
// it, in a move or an illegal move, names the environment.
func TestVectorOpponentErrors(t *testing.T) {
	illegal := mustMove(t, "c3-1-c4")
	for _, c := range []struct {
		name string
		make func(uint64) (Opponent, error)
		want string
	}{
		{"made", func(uint64) (Opponent, error) { return nil, errors.New("no opponent") }, "reset: opponent: no opponent"},
		{"move", func(uint64) (Opponent, error) { return failingOpponent{}, nil }, "environment 0: opponent: no move"},
		{"illegal", func(uint64) (Opponent, error) { return failingOpponent{illegal: illegal}, nil }, "environment 1: opponent: step: action 14: move c3-1-c4: c3 is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, err := New(2, Options{Env: env.DefaultOptions(), NewOpponent: c.make, Agent: AgentBlue})
			if err != nil {
				t.Fatal(err)
			}
			if err := v.Reset(0, &Buffers{}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

// TestVectorOpponent checks that with an opponent every observation is the
// agent's turn, that the agent plays its colours, that rewards are the
// agent's and that Reset and Close renew and close the opponents.
func TestVectorOpponent(t *testing.T) {
	opts := env.DefaultOptions()
	opts.Rules.MaxPlies = 30
	for _, c := range []struct {
		agent AgentColors
		want  []int64
	}{{AgentRed, []int64{int64(env.Red)}}, {AgentBlue, []int64{int64(env.Blue)}}, {AgentAlternating, []int64{int64(env.Red), int64(env.Blue)}}} {
		t.Run(fmt.Sprint(c.agent), func(t *testing.T) {
			const n = 4
			var made []*randomOpponent
			newOpponent := func(seed uint64) (Opponent, error) {
				o, err := newRandomOpponent(seed)
				made = append(made, o.(*randomOpponent))
				return o, err
			}
			v, b := newTestVector(t, n, Options{Env: opts, NewOpponent: newOpponent, Agent: c.agent})
			actions := make([]env.Action, n)
			agents := map[int64]bool{}
			for range 60 {
				for i := range n {
					inf := row(b.Infos, i, InfoColumns)
					agents[inf[InfoAgent]] = true
					if inf[InfoStatus] == int64(env.Ongoing) && inf[InfoToMove] != inf[InfoAgent] {
						t.Fatalf("environment %d: the opponent is to move", i)
					}
					if st := env.Status(inf[InfoStatus]); st.Over() && b.Rewards[i] != st.Reward(env.Color(inf[InfoAgent])) {
						t.Fatalf("environment %d: reward %v at %v for the agent %d", i, b.Rewards[i], st, inf[InfoAgent])
					}
				}
				if err := v.Sample(actions); err != nil {
					t.Fatal(err)
				}
				if err := v.Step(actions, b); err != nil {
					t.Fatal(err)
				}
			}
			if got := slices.Sorted(maps.Keys(agents)); !slices.Equal(got, c.want) {
				t.Fatalf("agent colours %v, want %v", got, c.want)
			}
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			for i, o := range made {
				if o.closed != 1 || o.episodes < 2 {
					t.Errorf("opponent %d: closed %d times, %d episodes", i, o.closed, o.episodes)
				}
			}
			if err := v.Step(actions, b); err == nil || !strings.Contains(err.Error(), "reset first") {
				t.Errorf("step after close: %v", err)
			}
		})
	}
}

// TestVectorProperties steps Vectors of random sizes, rules and openings,
// with and without an opponent, by random actions, legal and not, and
// checks every output against the environments' games: observations,
// masks and infos are their positions', an illegal action changes
// nothing, an ended episode's next step starts the next one, and the same
// seed repeats the same trajectory.
func TestVectorProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 12 {
		opts := env.DefaultOptions()
		opts.Rules.MaxPlies = 4 + rng.IntN(40)
		opts.Rules.TooTall = rng.IntN(2) == 0
		opts.OpeningPlies = rng.IntN(4)
		o := Options{Env: opts, Agent: AgentColors(rng.IntN(3)), OpponentWaits: rng.IntN(2) == 0}
		if trial%2 == 1 {
			o.NewOpponent = newRandomOpponent
		}
		n := 1 + rng.IntN(6)
		seed := rng.Uint64()
		first := vectorTrajectory(t, n, o, seed, rng.Uint64())
		if again := vectorTrajectory(t, n, o, seed, 0); again != first {
			t.Fatalf("trial %d: the same seed gave digests %s and %s", trial, first, again)
		}
	}
}

// vectorTrajectory steps a Vector of n environments reset with seed for
// 80 steps, checking each step's outputs; with a chaos seed other than 0,
// some steps first try an illegal action. It returns the trajectory's
// digest.
func vectorTrajectory(t *testing.T, n int, o Options, seed, chaos uint64) string {
	t.Helper()
	v, b := newTestVector(t, n, o)
	if err := v.Reset(seed, b); err != nil {
		t.Fatal(err)
	}
	var rng *rand.Rand
	if chaos != 0 {
		rng = rand.New(rand.NewPCG(chaos, 0))
	}
	h := sha256.New()
	actions := make([]env.Action, n)
	episodes := make([]int64, n)
	for step := range 80 {
		checkVectorRows(t, v, b, o, step)
		for i := range n {
			inf := row(b.Infos, i, InfoColumns)
			if inf[InfoEpisode] != episodes[i] && inf[InfoEpisode] != episodes[i]+1 {
				t.Fatalf("step %d, environment %d: episode %d after %d", step, i, inf[InfoEpisode], episodes[i])
			}
			episodes[i] = inf[InfoEpisode]
		}
		_ = binary.Write(h, binary.LittleEndian, b.Observations)
		_ = binary.Write(h, binary.LittleEndian, b.Infos)
		if err := v.Sample(actions); err != nil {
			t.Fatal(err)
		}
		if rng != nil && rng.IntN(4) == 0 {
			tryIllegal(t, v, b, actions, rng)
		}
		if err := v.Step(actions, b); err != nil {
			t.Fatal(err)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// tryIllegal steps with one environment's action replaced by a random
// one that is not legal there and checks that the step is refused and
// changes nothing.
func tryIllegal(t *testing.T, v *Vector, b *Buffers, actions []env.Action, rng *rand.Rand) {
	t.Helper()
	i := rng.IntN(len(actions))
	if v.done[i] {
		return
	}
	bad := env.Action(rng.IntN(env.NumActions+20) - 10)
	if bad >= 0 && bad < env.NumActions && b.Masks[i*env.NumActions+int(bad)] {
		return
	}
	before := slices.Clone(b.Infos)
	fens := make([]string, v.Len())
	for j := range fens {
		p := v.Game(j).Position()
		fens[j] = p.FEN()
	}
	tried := slices.Clone(actions)
	tried[i] = bad
	if err := v.Step(tried, b); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("environment %d: action %d", i, bad)) {
		t.Fatalf("illegal action %d in environment %d: err = %v", bad, i, err)
	}
	for j := range fens {
		if p := v.Game(j).Position(); p.FEN() != fens[j] || !slices.Equal(before, b.Infos) {
			t.Fatalf("a refused step changed environment %d", j)
		}
	}
}

// checkVectorRows checks every environment's outputs against its game.
func checkVectorRows(t *testing.T, v *Vector, b *Buffers, o Options, step int) {
	t.Helper()
	obs := make([]float32, env.ObservationSize)
	for i := range v.Len() {
		g := v.Game(i)
		p := g.Position()
		st := g.Status()
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("step %d, environment %d (%s): "+format, append([]any{step, i, p.FEN()}, args...)...)
		}
		env.EncodeObservation(obs, &p, g.Rules(), g.Repetitions())
		if !slices.Equal(obs, row(b.Observations, i, env.ObservationSize)) {
			fail("observation differs from the position's")
		}
		mask := row(b.Masks, i, env.NumActions)
		legal := p.LegalActions(nil, g.Rules().TooTall)
		slices.Sort(legal)
		if st.Over() {
			legal = nil
		}
		if got := slices.Collect(trueIndices(mask)); !slices.Equal(got, legal) {
			fail("mask has %d actions, the position %d", len(got), len(legal))
		}
		inf := row(b.Infos, i, InfoColumns)
		if inf[InfoStatus] != int64(st) || inf[InfoPly] != int64(p.Ply()) || inf[InfoToMove] != int64(p.SideToMove()) {
			fail("info %v", inf)
		}
		if b.Terminations[i] != (st.Over() && !st.Truncated()) || b.Truncations[i] != st.Truncated() {
			fail("flags %v %v at %v", b.Terminations[i], b.Truncations[i], st)
		}
		if o.NewOpponent == nil {
			if inf[InfoAgent] != inf[InfoToMove] || inf[InfoOpponentAction] != -1 {
				fail("info %v without an opponent", inf)
			}
		} else if !st.Over() && inf[InfoToMove] != inf[InfoAgent] {
			fail("the opponent is to move")
		}
	}
}

// trueIndices yields the indices of the true entries of mask.
func trueIndices(mask []bool) func(func(env.Action) bool) {
	return func(yield func(env.Action) bool) {
		for a, ok := range mask {
			if ok && !yield(env.Action(a)) {
				return
			}
		}
	}
}

// BenchmarkVectorStep steps 256 games with random legal actions drawn by
// the vector itself, observations and masks delivered into buffers.
func BenchmarkVectorStep(b *testing.B) {
	const n = 256
	v, buf := newTestVector(b, n, Options{Env: env.DefaultOptions()})
	actions := make([]env.Action, n)
	for b.Loop() {
		if err := v.Sample(actions); err != nil {
			b.Fatal(err)
		}
		if err := v.Step(actions, buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "steps/s")
}

// mustMove returns the move of a fixture's text or stops the test.
func mustMove(tb testing.TB, text string) env.Move {
	tb.Helper()
	m, err := env.ParseMove(text)
	if err != nil {
		tb.Fatalf("fixture %s: %v", text, err)
	}
	return m
}

// mustAction returns the action of a fixture move's text or stops the test.
func mustAction(tb testing.TB, text string) env.Action {
	tb.Helper()
	a, err := env.ActionOf(mustMove(tb, text))
	if err != nil {
		tb.Fatalf("fixture %s: %v", text, err)
	}
	return a
}
