package distributed

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/remotegames"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// TestSimulatedActorsEachGameOnce runs the load generator against a
// learner: every game the server acknowledged is ingested once, each with
// its own actor, and the generator's count is the learner's.
func TestSimulatedActorsEachGameOnce(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(t, dir)
	s := startServer(t, dir)
	l, _ := newLearner(t, s, cfg, dir)
	var published, ingested idSet
	l.ingested = ingested.add
	publishNet(t, l, cfg, 0)
	var log strings.Builder
	res, err := Simulate(context.Background(), SimulateOptions{
		ConnectOptions: ConnectOptions{URL: s.URL, Token: s.Token},
		Actors:         25, Rate: 200, Duration: time.Second, Games: 3, Workers: 1,
		Log: &log, published: published.add,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(log.String())
	if res.Made != 200 || res.Acknowledged != res.Made || res.Unsent != 0 || res.HeldBack != 0 {
		t.Errorf("simulate: %+v: want 200 games made and acknowledged", res)
	}
	if int64(published.len()) != res.Acknowledged {
		t.Errorf("%d games acknowledged by id, the result says %d", published.len(), res.Acknowledged)
	}
	c, err := l.Collect(context.Background(), remotegames.Request{}, func(train.Sample) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if int64(c.Games) != res.Acknowledged || c.Duplicate+c.Invalid+c.Stale != 0 {
		t.Errorf("collect: %+v: want the %d games acknowledged, none dropped", c, res.Acknowledged)
	}
	// Each game passes the stages in order (one clock here), and so do
	// their percentiles.
	stages := []float64{c.PublishToStoredMs.P99, c.PublishToFetchedMs.P99, c.PublishToCheckedMs.P99, c.PublishToWindowMs.P99, c.PublishToWindowMs.Max}
	if c.PublishToWindowMs.P99 <= 0 || !slices.IsSorted(stages) {
		t.Errorf("delays: to stored %+v, fetched %+v, checked %+v, the window %+v: want each stage after the one before",
			c.PublishToStoredMs, c.PublishToFetchedMs, c.PublishToCheckedMs, c.PublishToWindowMs)
	}
	actors := map[string]bool{}
	for id := range published.ids {
		actors[id[:strings.LastIndex(id, "-")]] = true
	}
	if len(actors) != 25 {
		t.Errorf("%d actors sent games, want 25", len(actors))
	}
	sameGames(t, &published, &ingested)
}

// publishNet publishes a random network of cfg as the given version.
func publishNet(t testing.TB, l *Learner, cfg runconfig.Config, version int) {
	t.Helper()
	net, err := model.New(cfg.Model, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Publish(version, net); err != nil {
		t.Fatal(err)
	}
}

func TestSimulateRefusesBadOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    SimulateOptions
		want string
	}{
		{"no actors", SimulateOptions{Rate: 1, Duration: time.Second}, "0 actors"},
		{"no rate", SimulateOptions{Actors: 1, Duration: time.Second}, "rate 0"},
		{"no duration", SimulateOptions{Actors: 1, Rate: 1}, "duration 0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Simulate(context.Background(), tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestCursorTakesEachCounterOnce(t *testing.T) {
	c := cursor{Seen: map[string]uint64{"a": 2}, Above: map[string][]uint64{}}
	for _, tc := range []struct {
		counter uint64
		dup     bool
		seen    uint64
		above   []uint64
	}{
		{2, true, 2, nil},
		{4, false, 2, []uint64{4}},
		{4, true, 2, []uint64{4}},
		{3, false, 4, nil},
		{6, false, 4, []uint64{6}},
		{8 + reorderHorizon, false, 8, []uint64{8 + reorderHorizon}}, // 5 to 7 given up
		{5, true, 8, []uint64{8 + reorderHorizon}},
		{9, false, 9, []uint64{8 + reorderHorizon}},
	} {
		if dup := c.take("a", tc.counter, 0); dup != tc.dup {
			t.Errorf("take %d: duplicate %v, want %v", tc.counter, dup, tc.dup)
		}
		if c.Seen["a"] != tc.seen || !slices.Equal(c.Above["a"], tc.above) {
			t.Errorf("after %d: seen %d, above %v; want %d, %v", tc.counter, c.Seen["a"], c.Above["a"], tc.seen, tc.above)
		}
	}
	data, _ := json.Marshal(c)
	var back cursor
	if err := json.Unmarshal(data, &back); err != nil || back.Seen["a"] != c.Seen["a"] || !slices.Equal(back.Above["a"], c.Above["a"]) {
		t.Errorf("cursor %s read back as %+v, %v", data, back, err)
	}
}
