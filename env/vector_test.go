package env

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
)

// newTestVector returns a Vector after its reset with seed 1, with buffers
// for all its outputs.
func newTestVector(tb testing.TB, n int, o VectorOptions) (*Vector, *VectorBuffers) {
	tb.Helper()
	v, err := NewVector(n, o)
	if err != nil {
		tb.Fatal(err)
	}
	b := &VectorBuffers{
		Observations: make([]float32, n*ObservationSize), Masks: make([]bool, n*NumActions),
		Rewards: make([]float32, n), Terminations: make([]bool, n), Truncations: make([]bool, n),
		Infos: make([]int64, n*VectorInfoColumns),
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

func (o *randomOpponent) Move(g *Game) (Move, error) {
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
	opts := DefaultOptions()
	opts.Rules.MaxPlies = 24
	opts.OpeningPlies = 2
	const n = 4
	v, b := newTestVector(t, n, VectorOptions{Env: opts})
	if err := v.Reset(17, b); err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	actions := make([]Action, n)
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
	opts := DefaultOptions()
	opts.Rules.MaxPlies = 10
	const n = 3
	v, b := newTestVector(t, n, VectorOptions{Env: opts})
	singles := make([]*Env, n)
	for i := range singles {
		singles[i], _ = NewEnv(opts)
		if _, err := singles[i].ResetInto(MixSeed(1, uint64(i), 0), ResetOptions{}, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	obs, mask := make([]float32, ObservationSize), make([]bool, NumActions)
	actions := make([]Action, n)
	episodes := make([]uint64, n)
	pending := make([]bool, n)
	for step := range 40 {
		for i, e := range singles {
			if err := e.ObserveInto(obs, mask); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(obs, row(b.Observations, i, ObservationSize)) || !slices.Equal(mask, row(b.Masks, i, NumActions)) {
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
				if _, err := e.ResetInto(MixSeed(1, uint64(i), episodes[i]), ResetOptions{}, nil, nil); err != nil {
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
	redMove := mustAction(t, mustMove(t, "a6-2-a4"))
	blueMove := mustAction(t, mustMove(t, "a1-1-a2"))
	tests := []struct {
		name    string
		actions []Action
		want    string
	}{
		{"too few actions", []Action{redMove}, "1 actions for 2 environments"},
		{"out of range", []Action{redMove, NumActions}, "environment 1: action 6912: out of range"},
		{"illegal", []Action{blueMove, redMove}, "environment 0: action 0: move a1-1-a2: a1 is controlled by blue"},
		{"negative", []Action{-1, -2}, "environment 0: action -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, b := newTestVector(t, 2, VectorOptions{Env: DefaultOptions()})
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
	bad := DefaultOptions()
	bad.OpeningPlies = -1
	for _, c := range []struct {
		name string
		n    int
		o    VectorOptions
		want string
	}{
		{"no environments", 0, VectorOptions{Env: DefaultOptions()}, "0 environments: want 1 to 1048576"},
		{"too many", maxVector + 1, VectorOptions{Env: DefaultOptions()}, "want 1 to 1048576"},
		{"agent colours", 1, VectorOptions{Env: DefaultOptions(), Agent: 3}, "agent colour 3"},
		{"options", 1, VectorOptions{Env: bad}, "opening_plies"},
	} {
		if _, err := NewVector(c.n, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	v, err := NewVector(1, VectorOptions{Env: DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Step([]Action{0}, &VectorBuffers{}); err == nil || !strings.Contains(err.Error(), "reset first") {
		t.Errorf("step before reset: %v", err)
	}
	if err := v.Reset(0, &VectorBuffers{Observations: make([]float32, 3)}); err == nil || !strings.Contains(err.Error(), "observations has 3") {
		t.Errorf("a short buffer: %v", err)
	}
	if err := v.Sample(make([]Action, 2)); err == nil || !strings.Contains(err.Error(), "2 actions for 1") {
		t.Errorf("sample into a wrong buffer: %v", err)
	}
}

// TestVectorParallelRecoversPanics checks that a panic in any worker,
// the caller's own share or another's, one per core or one per
// environment, comes back as that environment's error rather than ending
// the process.
func TestVectorParallelRecoversPanics(t *testing.T) {
	const n = 8
	v, _ := newTestVector(t, n, VectorOptions{Env: DefaultOptions()})
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
type failingOpponent struct{ illegal Move }

func (failingOpponent) Reset() {}

func (o failingOpponent) Move(g *Game) (Move, error) {
	if o.illegal != (Move{}) {
		return o.illegal, nil
	}
	return Move{}, errors.New("no move")
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
			v, err := NewVector(2, VectorOptions{Env: DefaultOptions(), NewOpponent: c.make, Agent: AgentBlue})
			if err != nil {
				t.Fatal(err)
			}
			if err := v.Reset(0, &VectorBuffers{}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

// TestVectorOpponent checks that with an opponent every observation is the
// agent's turn, that the agent plays its colours, that rewards are the
// agent's and that Reset and Close renew and close the opponents.
func TestVectorOpponent(t *testing.T) {
	opts := DefaultOptions()
	opts.Rules.MaxPlies = 30
	for _, c := range []struct {
		agent AgentColors
		want  []int64
	}{{AgentRed, []int64{int64(Red)}}, {AgentBlue, []int64{int64(Blue)}}, {AgentAlternating, []int64{int64(Red), int64(Blue)}}} {
		t.Run(fmt.Sprint(c.agent), func(t *testing.T) {
			const n = 4
			var made []*randomOpponent
			newOpponent := func(seed uint64) (Opponent, error) {
				o, err := newRandomOpponent(seed)
				made = append(made, o.(*randomOpponent))
				return o, err
			}
			v, b := newTestVector(t, n, VectorOptions{Env: opts, NewOpponent: newOpponent, Agent: c.agent})
			actions := make([]Action, n)
			agents := map[int64]bool{}
			for range 60 {
				for i := range n {
					inf := row(b.Infos, i, VectorInfoColumns)
					agents[inf[VectorInfoAgent]] = true
					if inf[VectorInfoStatus] == int64(Ongoing) && inf[VectorInfoToMove] != inf[VectorInfoAgent] {
						t.Fatalf("environment %d: the opponent is to move", i)
					}
					if st := Status(inf[VectorInfoStatus]); st.Over() && b.Rewards[i] != st.Reward(Color(inf[VectorInfoAgent])) {
						t.Fatalf("environment %d: reward %v at %v for the agent %d", i, b.Rewards[i], st, inf[VectorInfoAgent])
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
		opts := DefaultOptions()
		opts.Rules.MaxPlies = 4 + rng.IntN(40)
		opts.Rules.TooTall = rng.IntN(2) == 0
		opts.OpeningPlies = rng.IntN(4)
		o := VectorOptions{Env: opts, Agent: AgentColors(rng.IntN(3)), OpponentWaits: rng.IntN(2) == 0}
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
func vectorTrajectory(t *testing.T, n int, o VectorOptions, seed, chaos uint64) string {
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
	actions := make([]Action, n)
	episodes := make([]int64, n)
	for step := range 80 {
		checkVectorRows(t, v, b, o, step)
		for i := range n {
			inf := row(b.Infos, i, VectorInfoColumns)
			if inf[VectorInfoEpisode] != episodes[i] && inf[VectorInfoEpisode] != episodes[i]+1 {
				t.Fatalf("step %d, environment %d: episode %d after %d", step, i, inf[VectorInfoEpisode], episodes[i])
			}
			episodes[i] = inf[VectorInfoEpisode]
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
func tryIllegal(t *testing.T, v *Vector, b *VectorBuffers, actions []Action, rng *rand.Rand) {
	t.Helper()
	i := rng.IntN(len(actions))
	if v.done[i] {
		return
	}
	bad := Action(rng.IntN(NumActions+20) - 10)
	if bad >= 0 && bad < NumActions && b.Masks[i*NumActions+int(bad)] {
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
func checkVectorRows(t *testing.T, v *Vector, b *VectorBuffers, o VectorOptions, step int) {
	t.Helper()
	obs := make([]float32, ObservationSize)
	for i := range v.Len() {
		g := v.Game(i)
		p := g.Position()
		st := g.Status()
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("step %d, environment %d (%s): "+format, append([]any{step, i, p.FEN()}, args...)...)
		}
		EncodeObservation(obs, &p, g.Rules(), g.Repetitions())
		if !slices.Equal(obs, row(b.Observations, i, ObservationSize)) {
			fail("observation differs from the position's")
		}
		mask := row(b.Masks, i, NumActions)
		legal := p.LegalActions(nil, g.Rules().TooTall)
		slices.Sort(legal)
		if st.Over() {
			legal = nil
		}
		if got := slices.Collect(trueIndices(mask)); !slices.Equal(got, legal) {
			fail("mask has %d actions, the position %d", len(got), len(legal))
		}
		inf := row(b.Infos, i, VectorInfoColumns)
		if inf[VectorInfoStatus] != int64(st) || inf[VectorInfoPly] != int64(p.Ply()) || inf[VectorInfoToMove] != int64(p.SideToMove()) {
			fail("info %v", inf)
		}
		if b.Terminations[i] != (st.Over() && !st.Truncated()) || b.Truncations[i] != st.Truncated() {
			fail("flags %v %v at %v", b.Terminations[i], b.Truncations[i], st)
		}
		if o.NewOpponent == nil {
			if inf[VectorInfoAgent] != inf[VectorInfoToMove] || inf[VectorInfoOpponentAction] != -1 {
				fail("info %v without an opponent", inf)
			}
		} else if !st.Over() && inf[VectorInfoToMove] != inf[VectorInfoAgent] {
			fail("the opponent is to move")
		}
	}
}

// trueIndices yields the indices of the true entries of mask.
func trueIndices(mask []bool) func(func(Action) bool) {
	return func(yield func(Action) bool) {
		for a, ok := range mask {
			if ok && !yield(Action(a)) {
				return
			}
		}
	}
}

// BenchmarkVectorStep steps 256 games with random legal actions drawn by
// the vector itself, observations and masks delivered into buffers.
func BenchmarkVectorStep(b *testing.B) {
	const n = 256
	v, buf := newTestVector(b, n, VectorOptions{Env: DefaultOptions()})
	actions := make([]Action, n)
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
