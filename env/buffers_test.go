package env

import (
	"slices"
	"strings"
	"testing"
)

// TestStepIntoMatchesStep plays the same random games through Step and
// StepInto, resets through ResetWith and ResetInto, and checks that every
// observation, mask, reward, end flag and info agree.
func TestStepIntoMatchesStep(t *testing.T) {
	short := DefaultRules()
	short.MaxPlies = 12
	noTall := DefaultRules()
	noTall.TooTall = false
	tests := []struct {
		name  string
		opts  Options
		reset ResetOptions
	}{
		{"default", DefaultOptions(), ResetOptions{}},
		{"opening plies", DefaultOptions(), ResetOptions{OpeningPlies: 6}},
		{"move limit", Options{Rules: short}, ResetOptions{}},
		{"no too-tall rule", Options{Rules: noTall}, ResetOptions{}},
		{"from a fen", DefaultOptions(), ResetOptions{FEN: "rrrrr,,,,,/,,,,,/,,b,,,/,,,,,/,,,,,/bb,,,,, b"}},
		{"rules of the episode", DefaultOptions(), ResetOptions{Rules: &short}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, fast := mustEnv(t, tt.opts), mustEnv(t, tt.opts)
			obs, mask := make([]float32, ObservationSize), make([]bool, NumActions)
			rng := newRNG(21)
			for episode := range 4 {
				seed := uint64(episode)
				wantObs, wantInfo, err := ref.ResetWith(seed, tt.reset)
				if err != nil {
					t.Fatal(err)
				}
				info, err := fast.ResetInto(seed, tt.reset, obs, mask)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(obs, wantObs) || !slices.Equal(mask, ref.LegalMask()) || !slices.Equal(info.Opening, wantInfo.Opening) || info.Ply != wantInfo.Ply {
					t.Fatalf("episode %d: reset differs", episode)
				}
				for ply := 0; ; ply++ {
					legal := fast.AppendLegalActions(nil)
					if !slices.Equal(legal, ref.LegalActions()) {
						t.Fatalf("episode %d ply %d: legal actions differ", episode, ply)
					}
					if len(legal) == 0 {
						break
					}
					a := legal[rng.IntN(len(legal))]
					wantObs, wantReward, wantTerm, wantTrunc, _, err := ref.Step(a)
					if err != nil {
						t.Fatal(err)
					}
					reward, term, trunc, err := fast.StepInto(a, obs, mask)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(obs, wantObs) || !slices.Equal(mask, ref.LegalMask()) ||
						reward != wantReward || term != wantTerm || trunc != wantTrunc {
						t.Fatalf("episode %d ply %d: step of action %d differs", episode, ply, a)
					}
					fp, rp := fast.Game().Position(), ref.Game().Position()
					if fp.FEN() != rp.FEN() || fast.Game().Status() != ref.Game().Status() {
						t.Fatalf("episode %d ply %d: games differ", episode, ply)
					}
				}
			}
		})
	}
}

// TestBuffersRefused checks that bad buffers, actions and resets return
// errors naming what is wrong and leave the environment as it was.
func TestBuffersRefused(t *testing.T) {
	obs, mask := make([]float32, ObservationSize), make([]bool, NumActions)
	redMove := mustAction(t, mustMove(t, "b6-1-b5")) // blue is to move
	tests := []struct {
		name string
		call func(e *Env) error
		want string
	}{
		{"short observation", func(e *Env) error { _, _, _, err := e.StepInto(0, obs[:5], mask); return err }, "observation buffer has 5"},
		{"long mask", func(e *Env) error { _, _, _, err := e.StepInto(0, obs, make([]bool, NumActions+1)); return err }, "mask buffer has 6913"},
		{"out of range action", func(e *Env) error { _, _, _, err := e.StepInto(NumActions, obs, mask); return err }, "out of range"},
		{"illegal action", func(e *Env) error { _, _, _, err := e.StepInto(redMove, obs, mask); return err }, "controlled by red"},
		{"observe short", func(e *Env) error { return e.ObserveInto(nil, mask[:1]) }, "mask buffer has 1"},
		{"reset bad fen", func(e *Env) error { _, err := e.ResetInto(0, ResetOptions{FEN: "x"}, obs, mask); return err }, "reset"},
		{"reset finished", func(e *Env) error {
			_, err := e.ResetInto(0, ResetOptions{FEN: "rr,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,, b"}, obs, mask)
			return err
		}, "already over"},
		{"reset negative plies", func(e *Env) error { _, err := e.ResetInto(0, ResetOptions{OpeningPlies: -1}, obs, mask); return err }, "opening plies"},
		{"reset bad rules", func(e *Env) error {
			_, err := e.ResetInto(0, ResetOptions{Rules: &Rules{RepetitionLimit: 1}}, obs, mask)
			return err
		}, "repetitions"},
		{"reset short buffer", func(e *Env) error { _, err := e.ResetInto(0, ResetOptions{}, obs[:1], nil); return err }, "observation buffer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := mustEnv(t, DefaultOptions())
			if err := e.Game().Play(mustMove(t, "a6-1-a5")); err != nil {
				t.Fatal(err)
			}
			before := stateOf(e)
			err := tt.call(e)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
			if !stateOf(e).equal(before) {
				t.Fatal("a refused call changed the environment")
			}
		})
	}
}

// TestStepIntoAllocs checks that stepping into buffers allocates nothing,
// resets without opening plies included.
func TestStepIntoAllocs(t *testing.T) {
	e := mustEnv(t, DefaultOptions())
	obs, mask := make([]float32, ObservationSize), make([]bool, NumActions)
	legal := make([]Action, 0, 256)
	rng := newRNG(22)
	step := func() {
		legal = e.AppendLegalActions(legal[:0])
		if len(legal) == 0 {
			if _, err := e.ResetInto(rng.Uint64(), ResetOptions{}, obs, mask); err != nil {
				t.Fatal(err)
			}
			return
		}
		if _, _, _, err := e.StepInto(legal[rng.IntN(len(legal))], obs, mask); err != nil {
			t.Fatal(err)
		}
	}
	for range 2000 { // grow the history to a game's length
		step()
	}
	if n := testing.AllocsPerRun(2000, step); n != 0 {
		t.Fatalf("%v allocations per step, want 0", n)
	}
}

// BenchmarkStepInto is a step with the observation and mask written into
// buffers, replaying the actions of recorded random games (so that choosing
// an action costs nothing) with a reset at the end of each.
func BenchmarkStepInto(b *testing.B) {
	e := mustEnv(b, DefaultOptions())
	obs, mask := make([]float32, ObservationSize), make([]bool, NumActions)
	rng := newRNG(23)
	var games [][]Action
	for range 20 {
		var game []Action
		e.Reset(0)
		for legal := e.LegalActions(); len(legal) > 0; legal = e.LegalActions() {
			a := legal[rng.IntN(len(legal))]
			game = append(game, a)
			if _, _, _, _, _, err := e.Step(a); err != nil {
				b.Fatal(err)
			}
		}
		games = append(games, game)
	}
	if _, err := e.ResetInto(0, ResetOptions{}, obs, mask); err != nil {
		b.Fatal(err)
	}
	g, ply := 0, 0
	b.ReportAllocs()
	for b.Loop() {
		if ply == len(games[g]) {
			g, ply = (g+1)%len(games), 0
			if _, err := e.ResetInto(0, ResetOptions{}, obs, mask); err != nil {
				b.Fatal(err)
			}
			continue
		}
		if _, _, _, err := e.StepInto(games[g][ply], obs, mask); err != nil {
			b.Fatal(err)
		}
		ply++
	}
}
