package distributed

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/remotegames"
	"github.com/deathstacks/deathstacks/train/testctx"
)

// TestNetworkSwitchDelay publishes a series of networks to two playing
// actors and reports how long each took, from the publish to playing with
// the new network (logged with -v).
func TestNetworkSwitchDelay(t *testing.T) {
	const actors, versions = 2, 6
	dir := t.TempDir()
	cfg := testConfig(t, dir)
	s := startServer(t, dir)
	l, _ := newLearner(t, s, cfg, dir)
	net, err := model.New(cfg.Model, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Publish(0, net); err != nil {
		t.Fatal(err)
	}
	for range actors {
		startActorWith(t, ActorOptions{
			ConnectOptions: ConnectOptions{URL: s.URL, Token: s.Token}, Workers: 1, ParallelGames: 2,
		})
	}
	testctx.WaitUntil(t, "both actors playing network 0", func() bool { n, _, _ := l.actors(); return n == actors })

	var all []time.Duration
	for v := 1; v <= versions; v++ {
		if err := l.Publish(v, net); err != nil {
			t.Fatal(err)
		}
		testctx.WaitUntil(t, "both actors switching", func() bool { return len(l.switchDelays(v)) == actors })
		all = append(all, l.switchDelays(v)...)
	}
	for _, d := range all {
		if d <= 0 {
			t.Errorf("switch delay %v: want above 0", d)
		}
	}
	res, err := l.Collect(context.Background(), remotegames.Request{Version: versions}, func(train.Sample) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(slices.Max(l.switchDelays(versions))) / float64(time.Millisecond); res.NetworkSwitchMs != want {
		t.Errorf("Collect: network switch %.3f ms, want the slowest actor's %.3f ms", res.NetworkSwitchMs, want)
	}
	slices.Sort(all)
	t.Logf("%d switches of %d actors: median %v, max %v", len(all), actors,
		all[len(all)/2].Round(100*time.Microsecond), all[len(all)-1].Round(100*time.Microsecond))
}
