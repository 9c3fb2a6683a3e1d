package env

import (
	"slices"
	"testing"
)

func TestAECEndings(t *testing.T) {
	tests := episodeEnds
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := NewAEC(DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.ResetWith(0, ResetOptions{FEN: tt.fen, Rules: &tt.opts.Rules}); err != nil {
				t.Fatal(err)
			}
			for i, text := range tt.moves {
				m := mustMove(t, text)
				mover := a.AgentSelection()
				if obs := a.Observe(mover); !obs.Mask[mustAction(t, m)] || slices.Contains(a.Observe(mover.Other()).Mask, true) {
					t.Fatalf("step %d: the masks do not allow %v for %v alone", i, m, mover)
				}
				if a.Reward(Red) != 0 || a.Reward(Blue) != 0 || a.Terminated(mover) || a.Truncated(mover) {
					t.Fatalf("step %d: a reward or an ending before the end", i)
				}
				if err := a.Step(mustAction(t, m)); err != nil {
					t.Fatalf("step %d %s: %v", i, text, err)
				}
			}
			for _, agent := range a.Agents() {
				want := map[Color]float32{Red: tt.red, Blue: tt.blue}[agent]
				if a.Reward(agent) != want || a.Terminated(agent) != tt.terminated || a.Truncated(agent) != tt.truncated {
					t.Errorf("%v: reward %v terminated %v truncated %v", agent, a.Reward(agent), a.Terminated(agent), a.Truncated(agent))
				}
			}
			obs, reward, terminated, truncated, info := a.Last()
			if reward != a.Reward(a.AgentSelection()) || terminated != tt.terminated || truncated != tt.truncated ||
				slices.Contains(obs.Mask, true) || info.Move != mustMove(t, tt.moves[len(tt.moves)-1]) {
				t.Errorf("Last after the end: reward %v terminated %v truncated %v info %+v", reward, terminated, truncated, info)
			}
			if err := a.Step(0); err == nil {
				t.Error("a step after the end was accepted")
			}
		})
	}
}

func TestAECReset(t *testing.T) {
	a, err := NewAEC(Options{Rules: DefaultRules(), OpeningPlies: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewAEC(Options{OpeningPlies: -1}); err == nil {
		t.Error("NewAEC accepted bad options")
	}
	info := a.Reset(5)
	if len(info.Opening) != 3 || a.AgentSelection() != Blue || !slices.Equal(a.Agents(), []Color{Red, Blue}) {
		t.Errorf("after Reset: info %+v, %v to move", info, a.AgentSelection())
	}
	if _, _, _, _, last := a.Last(); !slices.Equal(last.Opening, info.Opening) {
		t.Error("Last's info is not the reset's")
	}
	if _, err := a.ResetWith(5, ResetOptions{FEN: "nonsense"}); err == nil {
		t.Error("ResetWith accepted a bad FEN")
	}
	if _, _, _, _, last := a.Last(); !slices.Equal(last.Opening, info.Opening) {
		t.Error("a failed reset changed Last's info")
	}
}

// BenchmarkStep measures one step of a random episode, with the mask an
// agent reads before it and the observation it gets, through Env and
// through AEC.
func BenchmarkStep(b *testing.B) {
	b.Run("Env", func(b *testing.B) {
		e := mustEnv(b, DefaultOptions())
		rng := newRNG(1)
		e.Reset(0)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			mask := e.LegalMask()
			if _, _, term, trunc, _, err := e.Step(pick(rng, mask)); err != nil {
				b.Fatal(err)
			} else if term || trunc {
				e.Reset(uint64(i))
			}
		}
	})
	b.Run("AEC", func(b *testing.B) {
		a, err := NewAEC(DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		rng := newRNG(1)
		a.Reset(0)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			obs, _, _, _, _ := a.Last()
			if err := a.Step(pick(rng, obs.Mask)); err != nil {
				b.Fatal(err)
			}
			if a.Terminated(Red) || a.Truncated(Red) {
				a.Reset(uint64(i))
			}
		}
	})
}
