package distributed

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/distributed/natsserver"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// testConfig is the smoke run without evaluation or plots, keeping every
// game however old its network (the tests count games, not staleness).
func testConfig(t testing.TB, dir string) runconfig.Config {
	t.Helper()
	cfg, err := runconfig.Parse(configs.Smoke)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Output.Dir, cfg.Output.Plot, cfg.Eval.Every = dir, false, 0
	cfg.Distributed.MaxStaleness = 1000
	return cfg
}

// startServer starts an embedded server for the run in dir on a free
// loopback port.
func startServer(t testing.TB, dir string) *natsserver.Server {
	t.Helper()
	s, err := natsserver.Start(natsserver.Options{Addr: "127.0.0.1:0", RunDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// newLearner connects a learner to s for the run in dir.
func newLearner(t testing.TB, s *natsserver.Server, cfg runconfig.Config, dir string) (*Learner, *nats.Conn) {
	t.Helper()
	nc, err := Connect(context.Background(), ConnectOptions{URL: s.URL, Token: s.Token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	id, err := natsserver.RunID(dir)
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewLearner(context.Background(), nc, cfg, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, nc
}

// idSet is a concurrent multiset of game ids.
type idSet struct {
	mu  sync.Mutex
	ids map[string]int
}

func (s *idSet) add(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = map[string]int{}
	}
	s.ids[id]++
}

func (s *idSet) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ids)
}

// startActor runs an actor against s until its context is cancelled;
// wait returns its error.
func startActor(t testing.TB, s *natsserver.Server, published *idSet) (cancel func(), wait func() error) {
	t.Helper()
	return startActorWith(t, ActorOptions{
		ConnectOptions: ConnectOptions{URL: s.URL, Token: s.Token},
		Workers:        1, published: published.add,
	})
}

// startActorWith runs an actor with the given options, as startActor.
func startActorWith(t testing.TB, o ActorOptions) (cancel func(), wait func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- RunActor(ctx, o) }()
	var once sync.Once
	var err error
	wait = func() error {
		once.Do(func() {
			// No budget: an actor that does not stop hangs the test
			// until go test's -timeout, which names it.
			err = <-done
		})
		return err
	}
	t.Cleanup(func() { cancel(); wait() })
	return cancel, wait
}

// selfPlayGames plays n games of cfg with a random network.
func selfPlayGames(t testing.TB, cfg runconfig.Config, n int) []train.SelfPlayGame {
	t.Helper()
	net, err := model.New(cfg.Model, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var games []train.SelfPlayGame
	err = train.SelfPlay(ctx, cfg, net, 3, func(g train.SelfPlayGame) error {
		mu.Lock()
		defer mu.Unlock()
		if len(games) < n {
			games = append(games, g)
		}
		if len(games) == n {
			cancel()
		}
		return nil
	})
	if len(games) < n {
		t.Fatalf("self-play: %d games of %d: %v", len(games), n, err)
	}
	return games
}

// gameMessage makes g the game of the given actor and counter, played by
// network 0, as its publisher would send it.
func gameMessage(t testing.TB, g train.SelfPlayGame, runID, actor string, counter uint64) message {
	t.Helper()
	r := newRecord(g, runID, actor, counter, 0)
	data, err := r.encode()
	if err != nil {
		t.Fatal(err)
	}
	return message{id: r.id(), data: data, positions: len(g.Samples), queued: time.Now()}
}

// benchLearner sets up a benchmark's learner, with a stream that keeps
// every game, and plays 4 smoke games to send.
func benchLearner(b *testing.B) (runconfig.Config, *Learner, *nats.Conn, []train.SelfPlayGame) {
	b.Helper()
	dir := b.TempDir()
	cfg := testConfig(b, dir)
	cfg.Distributed.StreamMaxGames = 1 << 30
	s := startServer(b, dir)
	l, nc := newLearner(b, s, cfg, dir)
	return cfg, l, nc, selfPlayGames(b, cfg, 4)
}
