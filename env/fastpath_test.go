package env

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// plainObservation writes the observation of p value by value from the
// layout's description in observation.go, reading each stack's pieces as
// FEN letters, to check [EncodeObservation] against.
func plainObservation(p *Position, rules Rules, repetitions int) []float32 {
	obs := make([]float32, ObservationSize)
	own := p.SideToMove().letter()
	for s := range NumSquares {
		pieces := p.At(Square(s)).String()
		var ownBelow, oppBelow int
		for d := range len(pieces) {
			mine := pieces[d] == own
			switch {
			case d < observedDepth && mine:
				obs[2*d*NumSquares+s] = 1
			case d < observedDepth:
				obs[(2*d+1)*NumSquares+s] = 1
			case mine:
				ownBelow++
			default:
				oppBelow++
			}
		}
		if len(pieces) == 0 {
			continue
		}
		obs[12*NumSquares+s] = float32(ownBelow) / 12
		obs[13*NumSquares+s] = float32(oppBelow) / 12
		obs[14*NumSquares+s] = float32(len(pieces)) / 12
		if tall := len(pieces) > 4; tall && pieces[0] == own && rules.TooTall {
			obs[15*NumSquares+s] = 1
		} else if tall && pieces[0] != own {
			obs[16*NumSquares+s] = 1
		}
	}
	constant := map[int]float32{}
	if rules.RepetitionLimit > 1 && repetitions > 1 {
		constant[17] = min(1, float32(repetitions-1)/float32(rules.RepetitionLimit-1))
	}
	if rules.MaxPlies > 0 {
		constant[18] = min(1, float32(p.Ply())/float32(rules.MaxPlies))
	}
	if p.SideToMove() == Red {
		constant[19] = 1
	}
	if rules.TooTall {
		constant[20] = 1
	}
	for plane, v := range constant {
		for s := range NumSquares {
			obs[plane*NumSquares+s] = v
		}
	}
	return obs
}

// TestEncodeObservationMatchesPlain compares the encoder with the plain
// one on the property samples, under several rules and repetition counts,
// into a buffer holding garbage.
func TestEncodeObservationMatchesPlain(t *testing.T) {
	rules := []Rules{DefaultRules(), {}, {TooTall: true, MaxPlies: 40, RepetitionLimit: 2}, {MaxPlies: 1000, RepetitionLimit: 5}}
	got := make([]float32, ObservationSize)
	for i, smp := range propertySamples() {
		r := rules[i%len(rules)]
		r.TooTall = smp.tooTall
		reps := 1 + i%4
		for j := range got {
			got[j] = float32(j) - 1000
		}
		EncodeObservation(got, &smp.pos, r, reps)
		if want := plainObservation(&smp.pos, r, reps); !slices.Equal(got, want) {
			t.Fatalf("sample %d %q (%+v, %d repetitions): the observation differs from the plain one", i, smp.pos.FEN(), r, reps)
		}
	}
}

// TestFastPathMatchesPlainPath plays random episodes through the fast path
// (ResetInto, StepInto, ObserveInto, AppendLegalActions) while other calls
// change the game under it, and checks every observation, mask, legal
// action list, reward and refusal against the plain path: the move
// generator, CheckMove's verdict, plainObservation and the history's own
// repetition count. The actions are drawn from the last mask written, which
// a change of the game makes stale, so that a cached legal move list that
// outlived its position would show.
func TestFastPathMatchesPlainPath(t *testing.T) {
	tests := []struct {
		name    string
		disturb func(e *Env, rng *rand.Rand) error
	}{
		{"steps only", nil},
		{"moves played on the game", func(e *Env, rng *rand.Rand) error {
			if moves := e.Game().LegalMoves(nil); len(moves) > 0 && rng.IntN(3) == 0 {
				return e.Game().Play(moves[rng.IntN(len(moves))])
			}
			return nil
		}},
		{"moves taken back", func(e *Env, rng *rand.Rand) error {
			if len(e.Game().Moves()) > 0 && rng.IntN(3) == 0 {
				return e.Game().Undo()
			}
			return nil
		}},
		{"resets", func(e *Env, rng *rand.Rand) error {
			if rng.IntN(8) == 0 {
				_, err := e.ResetInto(rng.Uint64(), randomReset(rng), nil, nil)
				return err
			}
			return nil
		}},
		{"too-tall rule toggled", func(e *Env, rng *rand.Rand) error {
			if rng.IntN(4) == 0 { // the same position under the other setting
				g := e.Game()
				r := g.Rules()
				r.TooTall = !r.TooTall
				_, err := e.ResetInto(0, ResetOptions{FEN: g.pos.FEN(), Rules: &r}, nil, nil)
				return err
			}
			return nil
		}},
	}
	steps := 3000
	if raceEnabled {
		steps = 500
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := newRNG(uint64(40 + i))
			e := mustEnv(t, DefaultOptions())
			obs, mask := make([]float32, ObservationSize), make([]bool, NumActions)
			check := func(what string) {
				t.Helper()
				g := e.Game()
				p := g.Position()
				want := make([]bool, NumActions)
				var actions []Action
				if !g.Status().Over() {
					want, actions = legalSet(g), p.LegalActions(nil, g.Rules().TooTall)
				}
				if !slices.Equal(mask, want) {
					t.Fatalf("%s, %q: the mask differs from the move generator's", what, p.FEN())
				}
				if !slices.Equal(obs, plainObservation(&p, g.Rules(), CountRepetitions(p.Hash(), g.History()))) {
					t.Fatalf("%s, %q: the observation differs from the plain one", what, p.FEN())
				}
				if got := e.AppendLegalActions([]Action{-1}); !slices.Equal(got[1:], actions) || got[0] != -1 {
					t.Fatalf("%s, %q: legal actions %v, want %v", what, p.FEN(), got, actions)
				}
			}
			if _, err := e.ResetInto(1, randomReset(rng), obs, mask); err != nil {
				t.Fatal(err)
			}
			check("first reset")
			for step := range steps {
				if tt.disturb != nil {
					if err := tt.disturb(e, rng); err != nil {
						t.Fatal(err)
					}
				}
				g := e.Game()
				if g.Status().Over() {
					if _, err := e.ResetInto(rng.Uint64(), randomReset(rng), obs, mask); err != nil {
						t.Fatal(err)
					}
					check("reset")
					continue
				}
				a, ok := moveBack(g, mask)
				switch {
				case slices.Contains(mask, true) && rng.IntN(4) > 0:
					a = pick(rng, mask) // legal in the position of the mask
				case !ok || rng.IntN(2) == 0:
					a = illegalAction(rng, mask)
				}
				legal := a.Valid() && legalSet(g)[a]
				mover := g.pos.SideToMove()
				var before envState
				if !legal {
					before = stateOf(e)
				}
				reward, term, trunc, err := e.StepInto(a, obs, mask)
				if !legal {
					m, merr := MoveOf(a)
					if merr == nil {
						p := g.Position()
						merr = p.CheckMove(m, g.Rules().TooTall)
					}
					if err == nil || merr == nil || !stateOf(e).equal(before) {
						t.Fatalf("step %d: illegal action %d: err %v (the move's check: %v), or the state changed", step, a, err, merr)
					}
					if err := e.ObserveInto(obs, mask); err != nil {
						t.Fatal(err)
					}
					check("after a refused step")
					continue
				}
				if err != nil {
					t.Fatalf("step %d: legal action %d refused: %v", step, a, err)
				}
				st := g.Status()
				if reward != st.Reward(mover) || term != (st.Over() && !st.Truncated()) || trunc != st.Truncated() {
					t.Fatalf("step %d: reward %v, terminated %v, truncated %v with status %v", step, reward, term, trunc, st)
				}
				check("step")
			}
		})
	}
}
