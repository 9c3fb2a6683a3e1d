package distributed

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/remotegames"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

func TestCursorPrune(t *testing.T) {
	const staleness = 2
	for _, tc := range []struct {
		name    string
		version int // the actor's newest game's network
		run     int // the run's network
		// noVersions drops the cursor's versions, as one written before
		// they were kept.
		noVersions bool
		// kept is the actor's version after the prune; -1 when pruned.
		kept int
	}{
		{"its games within reach", 5, 7, false, 5},
		{"its games stale", 5, 8, false, -1},
		{"a cursor without versions: kept, as of the run's network", 0, 8, true, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cursor{Seen: map[string]uint64{}, Above: map[string][]uint64{}}
			c.take("a", 1, tc.version)
			c.take("a", 3, tc.version) // 2 has not come
			if tc.noVersions {
				c.Versions = nil
			}
			c.prune(tc.run, staleness)
			_, seen := c.Seen["a"]
			v, versioned := c.Versions["a"]
			switch {
			case tc.kept < 0 && (seen || versioned || len(c.Above) != 0):
				t.Errorf("after the prune: %+v, want the actor gone", c)
			case tc.kept >= 0 && (!seen || v != tc.kept || !slices.Equal(c.Above["a"], []uint64{3})):
				t.Errorf("after the prune: %+v, want the actor kept with version %d", c, tc.kept)
			}
		})
	}
}

// TestCursorPruneTakesNoGameTwice sends the games of many actors, some
// late, out of order or again (as a retried publish may store a game
// twice), while the run's network advances, actors come and go, the cursor
// is pruned at every Collect and written and read back as a checkpoint
// does: no game is taken twice, none is lost that was not stale when it
// came, and the cursor keeps only actors whose games could still be
// taken.
func TestCursorPruneTakesNoGameTwice(t *testing.T) {
	const staleness = 2
	for seed := range uint64(20) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 44))
			cfg := runconfig.Config{}
			cfg.Distributed.MaxStaleness = staleness
			l := &Learner{cfg: cfg, log: io.Discard}
			cur := cursor{Seen: map[string]uint64{}, Above: map[string][]uint64{}}
			type game struct {
				actor   string
				counter uint64
				version int
			}
			counters := map[string]uint64{}
			var live []string
			var sent []game // every game sent, to send again
			var stream []game
			taken := map[game]int{}
			seq, version := uint64(0), 0
			for step := range 400 {
				// Actors come and go; the network advances now and then.
				if len(live) < 3 || rng.IntN(10) == 0 {
					live = append(live, fmt.Sprintf("actor%d", step))
				}
				if rng.IntN(8) == 0 {
					live = slices.Delete(live, 0, 1)
				}
				if rng.IntN(6) == 0 {
					version++
				}
				// Each live actor finishes a game or two; a batch reaches the
				// stream out of order, with an old game sent again.
				var batch []game
				for _, a := range live {
					for range rng.IntN(3) {
						counters[a]++
						batch = append(batch, game{a, counters[a], version})
					}
				}
				sent = append(sent, batch...)
				if len(sent) > 0 && rng.IntN(3) == 0 {
					batch = append(batch, sent[rng.IntN(len(sent))])
				}
				rng.Shuffle(len(batch), func(i, j int) { batch[i], batch[j] = batch[j], batch[i] })
				stream = append(stream, batch...)
				// A Collect takes what came; now and then the learner stops
				// and resumes from its checkpoint's cursor.
				if rng.IntN(4) == 0 {
					data, _ := json.Marshal(cur)
					cur = cursor{}
					if err := json.Unmarshal(data, &cur); err != nil {
						t.Fatal(err)
					}
					if cur.Seen == nil {
						cur.Seen = map[string]uint64{}
					}
					if cur.Above == nil {
						cur.Above = map[string][]uint64{}
					}
				}
				cur.prune(version, staleness)
				var res remotegames.Result
				h := handover{l: l, version: version, cur: &cur, res: &res, add: func(train.Sample) error { return nil }}
				for _, g := range stream {
					seq++
					before := res.Games
					if err := h.take(checked{seq: seq, rec: &record{Actor: g.actor, Counter: g.counter, Version: g.version}}); err != nil {
						t.Fatal(err)
					}
					switch {
					case res.Games > before:
						taken[g]++
						if taken[g] > 1 {
							t.Fatalf("step %d: game %v taken twice", step, g)
						}
					case taken[g] == 0 && version-g.version <= staleness:
						t.Fatalf("step %d: game %v, not stale, not taken", step, g)
					}
				}
				stream = stream[:0]
			}
			// Once the network is far enough ahead, only the actors whose
			// games could still be taken are kept.
			cur.prune(version, staleness)
			for a := range cur.Seen {
				if version-cur.Versions[a] > staleness {
					t.Errorf("actor %s kept, its newest game of network %d, the run at %d", a, cur.Versions[a], version)
				}
			}
			t.Logf("%d games taken, %d actors kept of %d", len(taken), len(cur.Seen), len(counters))
		})
	}
}

// TestDelaysPercentiles checks the percentiles of delays reported between
// additions against those of all the delays sorted at once.
func TestDelaysPercentiles(t *testing.T) {
	for seed := range uint64(10) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			var d delays
			var all []time.Duration
			if got := d.percentiles(); got != (remotegames.Percentiles{}) {
				t.Fatalf("none: %+v, want zeros", got)
			}
			for range 50 {
				for range rng.IntN(40) {
					x := time.Duration(rng.IntN(5000)) * time.Millisecond / 7
					d.add(x)
					all = append(all, x)
				}
				if len(all) == 0 {
					continue
				}
				sorted := slices.Sorted(slices.Values(all))
				at := func(q float64) float64 {
					return float64(sorted[int(q*float64(len(sorted)-1))]) / float64(time.Millisecond)
				}
				want := remotegames.Percentiles{P50: at(0.5), P99: at(0.99), Max: at(1)}
				if got := d.percentiles(); got != want || !slices.Equal(d.sorted, sorted) {
					t.Fatalf("after %d delays: %+v, want %+v", len(all), got, want)
				}
			}
		})
	}
}
