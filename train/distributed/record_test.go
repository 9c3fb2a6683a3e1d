package distributed

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/deathstacks/deathstacks/env"
)

func TestRecordRebuildsTheSamples(t *testing.T) {
	for _, fast := range []int{0, 2} {
		t.Run(fmt.Sprintf("fast simulations %d", fast), func(t *testing.T) {
			cfg := testConfig(t, t.TempDir())
			cfg.SelfPlay.FastSimulations, cfg.SelfPlay.FullSearchShare = fast, 0.5
			cfg.SelfPlay.ResignThreshold = -0.5 // some games resign: their last position has no move
			cfg.Env.OpeningPlies = 3
			for i, g := range selfPlayGames(t, cfg, 6) {
				r, err := newRecord(g, "run", "actor", uint64(i+1), 2)
				if err != nil {
					t.Fatal(err)
				}
				data, err := r.encode()
				if err != nil {
					t.Fatal(err)
				}
				back, err := decodeRecord(data)
				if err != nil {
					t.Fatalf("game %d: decode: %v", i, err)
				}
				if back.id() != fmt.Sprintf("actor-%d", i+1) || back.Version != 2 || !slices.Equal(back.Plies, g.SamplePlies) || back.Plies[0] < 3 || (fast == 0 && back.Plies[0] != 3) || back.Resigned != g.Resigned {
					t.Errorf("game %d: decoded id %s, version %d, plies %v, resigned %v", i, back.id(), back.Version, back.Plies, back.Resigned)
				}
				got, decided, err := back.samples(cfg.Env.Rules, nil)
				if err != nil {
					t.Fatalf("game %d: samples: %v", i, err)
				}
				if want := g.Resigned || won(t, cfg.Env.Rules, g.Moves); decided != want {
					t.Errorf("game %d: decided %v, want %v (resigned %v)", i, decided, want, g.Resigned)
				}
				if len(got) != len(g.Samples) {
					t.Fatalf("game %d: %d samples rebuilt, want %d", i, len(got), len(g.Samples))
				}
				for j, s := range g.Samples {
					if !slices.Equal(got[j].Obs, s.Obs) || !slices.Equal(got[j].Legal, s.Legal) || !slices.Equal(got[j].Policy, s.Policy) || got[j].Value != s.Value {
						t.Fatalf("game %d, sample %d: rebuilt sample differs from the one played", i, j)
					}
				}
			}
		})
	}
}

// won replays moves and reports whether a side won.
func won(t *testing.T, rules env.Rules, moves []env.Move) bool {
	t.Helper()
	game := env.NewGame(rules)
	for _, m := range moves {
		if err := game.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	_, ok := game.Status().Winner()
	return ok
}

func TestRecordRefusesBadGames(t *testing.T) {
	cfg := testConfig(t, t.TempDir())
	g := selfPlayGames(t, cfg, 1)[0]
	base, err := newRecord(g, "run", "actor", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if base.Resigned {
		t.Skip("the game resigned: the cases below assume one played to its end")
	}
	clone := func() *record {
		r := *base
		r.Moves = slices.Clone(base.Moves)
		r.Plies = slices.Clone(base.Plies)
		r.Policies = slices.Clone(base.Policies)
		r.Values = slices.Clone(base.Values)
		return &r
	}
	illegal := clone()
	for a := env.Action(0); a < env.NumActions; a++ {
		pos := env.StartPosition()
		if !slices.Contains(pos.LegalActions(nil, cfg.Env.Rules.TooTall), a) {
			illegal.Moves[0] = a
			break
		}
	}
	short := clone()
	n := len(base.Plies)
	short.Moves, short.Plies, short.Policies, short.Values = short.Moves[:len(short.Moves)-1], short.Plies[:n-1], short.Policies[:n-1], short.Values[:n-1]
	repeated := clone()
	repeated.Plies[1] = repeated.Plies[0]
	beyond := clone()
	beyond.Plies[n-1] = len(beyond.Moves)
	none := clone()
	none.Plies, none.Policies, none.Values = nil, nil, nil
	value := clone()
	value.Values[0] = 2
	policy := clone()
	policy.Policies[0] = make([]float32, len(policy.Policies[0]))
	wide := clone()
	wide.Policies[0] = append(wide.Policies[0], 0)
	for _, tc := range []struct {
		name string
		r    *record
	}{
		{"illegal move", illegal},
		{"game not over", short},
		{"plies not increasing", repeated},
		{"a position after the last move", beyond},
		{"no positions", none},
		{"value out of range", value},
		{"policy not a distribution", policy},
		{"policy longer than the legal moves", wide},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := tc.r.encode()
			if err != nil {
				t.Fatal(err)
			}
			r, err := decodeRecord(data)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := r.samples(cfg.Env.Rules, nil); err == nil {
				t.Error("samples: no error")
			}
		})
	}
	data, err := base.encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"truncated", data[:len(data)-5], errTruncated},
		{"flipped byte", flip(data, 20), errCorrupt},
		{"trailing byte", append(slices.Clone(data), 0), errCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := decodeRecord(tc.data); !errors.Is(err, tc.want) {
				t.Errorf("decode: %v, want %v", err, tc.want)
			}
		})
	}
}

func flip(data []byte, i int) []byte {
	out := slices.Clone(data)
	out[i] ^= 0x40
	return out
}

// FuzzDecodeRecord: any bytes decode to an error or to a record that
// encodes back to the same bytes, and rebuilding its samples never
// panics.
func FuzzDecodeRecord(f *testing.F) {
	cfg := testConfig(f, f.TempDir())
	for i, g := range selfPlayGames(f, cfg, 2) {
		r, err := newRecord(g, "run", "actor", uint64(i), 1)
		if err != nil {
			f.Fatal(err)
		}
		data, err := r.encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(recordMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := decodeRecord(data)
		if err != nil {
			return
		}
		again, err := r.encode()
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("decoded record encodes to other bytes (%v)", err)
		}
		_, _, _ = r.samples(cfg.Env.Rules, nil)
	})
}
