package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	vec "github.com/deathstacks/deathstacks/env/vector"
	"github.com/deathstacks/deathstacks/train/binding"
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
func newTestVector(tb testing.TB, n int, opts env.Options, spec string, colour int64) (*vector, *vec.Buffers) {
	tb.Helper()
	v, err := newVector(int64(n), opts, spec, colour)
	if err != nil {
		tb.Fatal(err)
	}
	b := &vec.Buffers{
		Observations: make([]float32, n*env.ObservationSize), Masks: make([]bool, n*env.NumActions),
		Rewards: make([]float32, n), Terminations: make([]bool, n), Truncations: make([]bool, n),
		Infos: make([]int64, n*vec.InfoColumns),
	}
	if err := v.Reset(1, b); err != nil {
		tb.Fatal(err)
	}
	return v, b
}

// TestVectorRefusals checks the refusals of the C API's numbers and
// specs, and of action arrays of the wrong length.
func TestVectorRefusals(t *testing.T) {
	for _, c := range []struct {
		name   string
		n      int64
		spec   string
		colour int64
		want   string
	}{
		{"no environments", 0, "", 0, "0 environments"},
		{"colour", 1, "", 3, "agent colour 3"},
		{"spec", 1, "nope", 0, "opponent: "},
	} {
		if _, err := newVector(c.n, env.DefaultOptions(), c.spec, c.colour); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	v, b := newTestVector(t, 2, env.DefaultOptions(), "", 0)
	if err := v.step([]int64{0}, b); err == nil || !strings.Contains(err.Error(), "1 actions for 2 environments") {
		t.Errorf("step: %v", err)
	}
	if err := v.sample(make([]int64, 3)); err == nil || !strings.Contains(err.Error(), "3 actions for 2 environments") {
		t.Errorf("sample: %v", err)
	}
	if _, err := v.fen(2); err == nil || !strings.Contains(err.Error(), "environment 2: want 0 to 1") {
		t.Errorf("fen: %v", err)
	}
}

// TestVectorOpponent checks the library's players as opponents: every
// observation is the agent's turn and the colours alternate.
func TestVectorOpponent(t *testing.T) {
	opts := env.DefaultOptions()
	opts.Rules.MaxPlies = 30
	for _, c := range []struct {
		spec   string
		colour int64
	}{{"greedy", 0}, {"greedy", 1}, {"greedy", 2}, {"az:sims=4", 2}} {
		colour := c.colour
		t.Run(c.spec+" "+[]string{"red", "blue", "alternate"}[colour], func(t *testing.T) {
			const n = 4
			v, b := newTestVector(t, n, opts, c.spec, colour)
			actions := make([]int64, n)
			agents := map[int64]bool{}
			for range 40 {
				for i := range n {
					inf := b.Infos[i*vec.InfoColumns : (i+1)*vec.InfoColumns]
					agents[inf[vec.InfoAgent]] = true
					if inf[vec.InfoStatus] == int64(env.Ongoing) && inf[vec.InfoToMove] != inf[vec.InfoAgent] {
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
			if want := map[int64]int{0: 1, 1: 1, 2: 2}[colour]; len(agents) != want {
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
			if p.WaitsOnServer() != tc.blocks {
				t.Errorf("waits on a server: %v, want %v", p.WaitsOnServer(), tc.blocks)
			}
			out, err := p.choose(env.StartFEN, "a6-2-a4 b1-1-b2", env.DefaultRules())
			if err != nil {
				t.Fatal(err)
			}
			var d struct{ Move string }
			if err := json.Unmarshal([]byte(out), &d); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			g, err := binding.PositionOf(env.StartFEN, "a6-2-a4 b1-1-b2").Game(env.DefaultRules())
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

// BenchmarkVectorAZ steps 128 or 256 games against the built-in player
// at 50 simulations a move and reports the network's evaluations per
// second.
func BenchmarkVectorAZ(b *testing.B) {
	for _, n := range []int{128, 256} {
		b.Run(fmt.Sprintf("envs=%d", n), func(b *testing.B) {
			v, buf := newTestVector(b, n, env.DefaultOptions(), "az:sims=50", 0)
			actions := make([]int64, n)
			stats := make([]int64, 2)
			if err := binding.ServerStats("", models().Load, stats); err != nil {
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
			if err := binding.ServerStats("", models().Load, stats); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(stats[1]-before)/b.Elapsed().Seconds(), "evals/s")
		})
	}
}
