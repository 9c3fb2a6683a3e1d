package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"testing"

	"github.com/deathstacks/deathstacks/env"
)

// TestGoldenVector is the reference trajectory of the vector environment
// against the library's players (env's golden test holds the case without
// an opponent): seeded episodes with random openings and auto-resets,
// with a greedy and an az opponent, every step's actions,
// observations, masks, rewards, flags and infos reduced to a digest. A
// change that keeps the environment's trajectories must keep every digest;
// one that means to change them records the new digests with the reason
// in its commit.
func TestGoldenVector(t *testing.T) {
	opts := env.DefaultOptions()
	opts.Rules.MaxPlies = 24
	opts.OpeningPlies = 2
	for _, c := range []struct {
		name, spec string
		colour     int64
		want       string
	}{
		{"greedy", "greedy", 2, "297e29d7a1b6ac30"},
		{"az", "az:sims=4", 1, "08a935988c3e6004"},
	} {
		t.Run(c.name, func(t *testing.T) {
			const n = 4
			v, b := newTestVector(t, n, opts, c.spec, c.colour)
			if err := v.Reset(17, b); err != nil {
				t.Fatal(err)
			}
			h := sha256.New()
			actions := make([]int64, n)
			for range 60 {
				for _, x := range []any{b.Observations, b.Masks, b.Rewards, b.Terminations, b.Truncations, b.Infos} {
					if err := binary.Write(h, binary.LittleEndian, x); err != nil {
						t.Fatal(err)
					}
				}
				if err := v.sample(actions); err != nil {
					t.Fatal(err)
				}
				if err := binary.Write(h, binary.LittleEndian, actions); err != nil {
					t.Fatal(err)
				}
				if err := v.step(actions, b); err != nil {
					t.Fatal(err)
				}
			}
			if got := hex.EncodeToString(h.Sum(nil)[:8]); got != c.want {
				t.Errorf("digest %s, want %s", got, c.want)
			}
		})
	}
}
