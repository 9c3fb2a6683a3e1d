package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/train"
)

// TestCall checks call's result, error code and message, for f run on
// the caller's goroutine and through offThread, where a panic is another
// goroutine's.
func TestCall(t *testing.T) {
	tests := []struct {
		name string
		f    func() (int64, error)
		want string // "" for success
	}{
		{"result", func() (int64, error) { return 7, nil }, ""},
		{"error", func() (int64, error) { return 0, errors.New("bad fen") }, "bad fen"},
		{"panic", func() (int64, error) { panic("boom") }, "internal error (please report): boom"},
		{"nil map write", func() (int64, error) {
			var m map[int]int
			m[1] = 1
			return 0, nil
		}, "assignment to entry in nil map"},
	}
	offThreadOf := func(f func() (int64, error)) func() (int64, error) {
		return func() (n int64, err error) {
			err = offThread(func() (err error) {
				n, err = f()
				return err
			})
			return n, err
		}
	}
	for _, tt := range tests {
		for _, off := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, off thread %v", tt.name, off), func(t *testing.T) {
				f := tt.f
				if off {
					f = offThreadOf(f)
				}
				code := call(f)
				if tt.want == "" {
					if code != 7 {
						t.Fatalf("call = %d, want 7", code)
					}
					return
				}
				if code >= 0 {
					t.Fatalf("call = %d, want a negative error code", code)
				}
				if msg := takeError(code); !strings.Contains(msg, tt.want) {
					t.Fatalf("message %q, want it to contain %q", msg, tt.want)
				}
				if msg := takeError(code); !strings.Contains(msg, "already taken") {
					t.Fatalf("a message taken twice: %q", msg)
				}
			})
		}
	}
}

func TestErrorsAreBounded(t *testing.T) {
	first := keepError(errors.New("first"))
	for range maxErrors {
		keepError(errors.New("more"))
	}
	if msg := takeError(first); !strings.Contains(msg, "too old") {
		t.Fatalf("the oldest message is still kept: %q", msg)
	}
}

func TestHandles(t *testing.T) {
	s, err := newSingle(env.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	h := register(s)
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"right kind", func() error {
			_, err := with(h, "environment", func(*single) (int64, error) { return 0, nil })
			return err
		}, ""},
		{"wrong kind", func() error {
			_, err := with(h, "player", func(*player) (int64, error) { return 0, nil })
			return err
		}, "is a environment, not a player"},
		{"never opened", func() error {
			_, err := with(-5, "environment", func(*single) (int64, error) { return 0, nil })
			return err
		}, "closed or never opened"},
		{"close", func() error { return closeHandle(h) }, ""},
		{"closed", func() error {
			_, err := with(h, "environment", func(*single) (int64, error) { return 0, nil })
			return err
		}, "closed or never opened"},
		{"closed twice", func() error { return closeHandle(h) }, "closed or never opened"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// newTestVector returns a vector environment after its reset, with its
// buffers.
func newTestVector(tb testing.TB, n int, opts env.Options, spec string, colour int64) (*vector, *buffers) {
	tb.Helper()
	v, err := newVector(int64(n), opts, spec, colour)
	if err != nil {
		tb.Fatal(err)
	}
	b := &buffers{
		obs: make([]float32, n*env.ObservationSize), mask: make([]bool, n*env.NumActions),
		rewards: make([]float32, n), term: make([]bool, n), trunc: make([]bool, n), info: make([]int64, n*infoColumns),
	}
	if err := v.reset(1, b); err != nil {
		tb.Fatal(err)
	}
	return v, b
}

// TestVectorMatchesEnv steps a vector environment and single environments
// alike and compares what they deliver, auto-resets included.
func TestVectorMatchesEnv(t *testing.T) {
	opts := env.DefaultOptions()
	opts.Rules.MaxPlies = 10
	const n = 3
	v, b := newTestVector(t, n, opts, "", colourRed)
	singles := make([]*env.Env, n)
	for i := range singles {
		singles[i], _ = env.NewEnv(opts)
	}
	obs, mask := make([]float32, env.ObservationSize), make([]bool, env.NumActions)
	actions := make([]int64, n)
	pending := make([]bool, n)
	for step := range 30 {
		for i, e := range singles {
			if err := e.ObserveInto(obs, mask); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(obs, row(b.obs, i, env.ObservationSize)) || !slices.Equal(mask, row(b.mask, i, env.NumActions)) {
				t.Fatalf("step %d, environment %d: observation or mask differs", step, i)
			}
		}
		if err := v.sample(actions); err != nil {
			t.Fatal(err)
		}
		if err := v.step(actions, b); err != nil {
			t.Fatal(err)
		}
		for i, e := range singles {
			if pending[i] {
				if _, err := e.ResetInto(0, env.ResetOptions{}, nil, nil); err != nil {
					t.Fatal(err)
				}
				pending[i] = false
				continue
			}
			reward, term, trunc, err := e.StepInto(env.Action(actions[i]), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if reward != b.rewards[i] || term != b.term[i] || trunc != b.trunc[i] {
				t.Fatalf("step %d, environment %d: reward or flags differ", step, i)
			}
			pending[i] = term || trunc
		}
	}
}

func TestVectorRefusals(t *testing.T) {
	redMove, _ := actionOf("a6-2-a4")
	blueMove, _ := actionOf("a1-1-a2")
	tests := []struct {
		name    string
		actions []int64
		want    string
	}{
		{"too few actions", []int64{redMove}, "1 actions for 2 environments"},
		{"out of range", []int64{redMove, env.NumActions}, "environment 1: action 6912: out of range"},
		{"illegal", []int64{blueMove, redMove}, "environment 0: action 0: move a1-1-a2: a1 is controlled by blue"},
		{"negative", []int64{-1, -2}, "environment 0: action -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, b := newTestVector(t, 2, env.DefaultOptions(), "", colourRed)
			before := slices.Clone(b.obs)
			err := v.step(tt.actions, b)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if !slices.Equal(before, b.obs) || v.envs[0].Game().Position() != v.envs[1].Game().Position() {
				t.Fatal("a refused step changed the environments")
			}
		})
	}
	if _, err := newVector(0, env.DefaultOptions(), "", 0); err == nil {
		t.Error("no environments accepted")
	}
	if _, err := newVector(1, env.DefaultOptions(), "", 3); err == nil {
		t.Error("colour 3 accepted")
	}
	if _, err := newVector(1, env.DefaultOptions(), "nope", 0); err == nil {
		t.Error("a bad spec accepted")
	}
	v, err := newVector(1, env.DefaultOptions(), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.step([]int64{0}, &buffers{}); err == nil || !strings.Contains(err.Error(), "reset first") {
		t.Errorf("step before reset: %v", err)
	}
	if err := v.reset(0, &buffers{obs: make([]float32, 3)}); err == nil || !strings.Contains(err.Error(), "observations has 3") {
		t.Errorf("a short buffer: %v", err)
	}
}

// TestVectorParallelRecoversPanics checks that a panic in any worker,
// the caller's own share or another's, one per core or one per
// environment, comes back as that environment's error rather than ending
// the process.
func TestVectorParallelRecoversPanics(t *testing.T) {
	const n = 8
	v, _ := newTestVector(t, n, env.DefaultOptions(), "", colourRed)
	for _, c := range []struct {
		perEnv bool
		bad    int
	}{{false, 0}, {false, n - 1}, {true, 0}, {true, n - 1}} {
		t.Run(fmt.Sprintf("per environment %v, environment %d", c.perEnv, c.bad), func(t *testing.T) {
			v.perEnv = c.perEnv
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

// TestVectorOpponent checks that with an opponent every observation is the
// agent's turn, that the colours alternate and rewards are the agent's;
// an az opponent's searches run on goroutines of their own.
func TestVectorOpponent(t *testing.T) {
	opts := env.DefaultOptions()
	opts.Rules.MaxPlies = 30
	for _, c := range []struct {
		spec   string
		colour int64
	}{{"greedy", colourRed}, {"greedy", colourBlue}, {"greedy", colourAlternate}, {"az:sims=4", colourAlternate}} {
		colour := c.colour
		t.Run(c.spec+" "+[]string{"red", "blue", "alternate"}[colour], func(t *testing.T) {
			const n = 4
			v, b := newTestVector(t, n, opts, c.spec, colour)
			if want := strings.HasPrefix(c.spec, "az"); v.perEnv != want {
				t.Fatalf("a goroutine per environment: %v, want %v", v.perEnv, want)
			}
			actions := make([]int64, n)
			agents := map[int64]bool{}
			for range 40 {
				for i := range n {
					inf := row(b.info, i, infoColumns)
					agents[inf[infoAgent]] = true
					if inf[infoStatus] == int64(env.Ongoing) && inf[infoToMove] != inf[infoAgent] {
						t.Fatalf("environment %d: the opponent is to move", i)
					}
				}
				if err := v.sample(actions); err != nil {
					t.Fatal(err)
				}
				if err := v.step(actions, b); err != nil {
					t.Fatal(err)
				}
			}
			if want := map[int64]int{colourRed: 1, colourBlue: 1, colourAlternate: 2}[colour]; len(agents) != want {
				t.Fatalf("agent colours %v, want %d of them", agents, want)
			}
		})
	}
}

// TestPlayerChoose checks a player of each kind through player.choose,
// an az player's search off the caller's goroutine.
func TestPlayerChoose(t *testing.T) {
	for _, tc := range []struct {
		spec   string
		blocks bool
	}{{"random", false}, {"alphabeta:depth=1", false}, {"az:sims=8", true}} {
		t.Run(tc.spec, func(t *testing.T) {
			p, err := newPlayer(tc.spec, 1)
			if err != nil {
				t.Fatal(err)
			}
			if p.blocks != tc.blocks {
				t.Errorf("blocks = %v, want %v", p.blocks, tc.blocks)
			}
			out, err := p.choose(env.StartFEN, "a6-2-a4 b1-1-b2", env.DefaultRules())
			if err != nil {
				t.Fatal(err)
			}
			var d decision
			if err := json.Unmarshal([]byte(out), &d); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			g, err := gameOf(env.StartFEN, "a6-2-a4 b1-1-b2", env.DefaultRules())
			if err != nil {
				t.Fatal(err)
			}
			m, err := env.ParseMove(d.Move)
			if err != nil || !slices.Contains(g.LegalMoves(nil), m) {
				t.Fatalf("move %q (%v) is not legal", d.Move, err)
			}
		})
	}
}

// FuzzStrings feeds the library's string inputs arbitrary bytes: errors
// are fine, panics are not.
func FuzzStrings(f *testing.F) {
	for _, s := range []string{env.StartFEN, "a6-2-a4", "", "rr,rr r", "alphabeta:depth=1", "x\x00y", "a6-2-a4 b1-1-b2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = legalMoves(s, true)
		_, _ = renderFEN(s)
		_, _ = actionOf(s)
		_, _ = gameOf(s, s, env.DefaultRules())
		_, _ = gameOf(env.StartFEN, s, env.DefaultRules())
		if !strings.HasPrefix(s, "az") && !strings.HasPrefix(s, "mcts") {
			_, _, _ = newPlayerOf(s, 1)
		}
	})
}

// BenchmarkVectorStep steps 256 games with random legal actions drawn by
// the vector itself, observations and masks delivered into buffers.
func BenchmarkVectorStep(b *testing.B) {
	const n = 256
	v, buf := newTestVector(b, n, env.DefaultOptions(), "", colourRed)
	actions := make([]int64, n)
	for b.Loop() {
		if err := v.sample(actions); err != nil {
			b.Fatal(err)
		}
		if err := v.step(actions, buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "steps/s")
}

// BenchmarkVectorAZ steps 128 or 256 games against the built-in player
// at 50 simulations a move and reports the network's evaluations per
// second.
func BenchmarkVectorAZ(b *testing.B) {
	for _, n := range []int{128, 256} {
		b.Run(fmt.Sprintf("envs=%d", n), func(b *testing.B) {
			v, buf := newTestVector(b, n, env.DefaultOptions(), "az:sims=50", colourRed)
			actions := make([]int64, n)
			stats := make([]int64, 2)
			if err := serverStats("", stats); err != nil {
				b.Fatal(err)
			}
			before := stats[1]
			for b.Loop() {
				if err := v.sample(actions); err != nil {
					b.Fatal(err)
				}
				if err := v.step(actions, buf); err != nil {
					b.Fatal(err)
				}
			}
			if err := serverStats("", stats); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(stats[1]-before)/b.Elapsed().Seconds(), "evals/s")
		})
	}
}

// TestWeights checks the tensors read back from the built-in network: the
// names of its layout, shapes that multiply out to the parameter count,
// and the policy head's shape from the action space.
func TestWeights(t *testing.T) {
	nw, err := newNetwork("")
	if err != nil {
		t.Fatal(err)
	}
	ts, err := nw.weights()
	if err != nil {
		t.Fatal(err)
	}
	net, err := train.LoadNetwork("")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, tn := range ts {
		if tn.Offset != total {
			t.Fatalf("tensor %d (%s): offset %d, want %d", i, tn.Name, tn.Offset, total)
		}
		total += len(tn.data)
	}
	if total != net.NumParams() {
		t.Fatalf("%d values, the network has %d parameters", total, net.NumParams())
	}
	byName := map[string]tensor{}
	for _, tn := range ts {
		byName[tn.Name] = tn
	}
	if got := byName["policy.b"].Shape; !slices.Equal(got, []int{1, env.NumActions}) {
		t.Errorf("policy.b has shape %v", got)
	}
	if got := byName["stem.w"].Shape; len(got) != 4 || got[1] != env.NumPlanes {
		t.Errorf("stem.w has shape %v", got)
	}
	dst := make([]float32, total)
	if err := nw.copyWeights(dst); err != nil {
		t.Fatal(err)
	}
	if err := nw.copyWeights(dst[1:]); err == nil {
		t.Error("a short buffer accepted")
	}
}
