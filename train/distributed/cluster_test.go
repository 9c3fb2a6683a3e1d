package distributed

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/distributed/natsserver"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/remotegames"
	"github.com/deathstacks/deathstacks/train/testctx"
)

// testCluster is a NATS cluster of three JetStream servers on loopback.
type testCluster struct {
	t            testing.TB
	ports, route [3]int
	dirs         [3]string
	nodes        [3]*server.Server
}

// startCluster starts three servers routed to each other, each keeping
// its data in a folder of its own.
func startCluster(t testing.TB) *testCluster {
	t.Helper()
	c := &testCluster{t: t}
	ports := freePorts(t, 6)
	for i := range 3 {
		c.ports[i], c.route[i], c.dirs[i] = ports[i], ports[3+i], t.TempDir()
	}
	for i := range 3 {
		c.start(i)
	}
	t.Cleanup(func() {
		for i := range 3 {
			c.stop(i)
		}
	})
	return c
}

// freePorts returns n distinct loopback ports free a moment ago: each
// is held until all are chosen, so none is handed out twice.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	ports := make([]int, n)
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		ports[i] = ln.Addr().(*net.TCPAddr).Port
	}
	return ports
}

// start starts node i (again, on its data).
func (c *testCluster) start(i int) {
	c.t.Helper()
	var routes []string
	for _, p := range c.route {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	s, err := server.NewServer(&server.Options{
		ServerName: fmt.Sprintf("node%d", i), Host: "127.0.0.1", Port: c.ports[i],
		JetStream: true, StoreDir: c.dirs[i], MaxPayload: natsserver.MaxPayload, NoSigs: true, NoLog: true,
		Cluster: server.ClusterOpts{Name: "deathstacks", Host: "127.0.0.1", Port: c.route[i]},
		Routes:  server.RoutesFromStr(strings.Join(routes, ",")),
	})
	if err != nil {
		c.t.Fatal(err)
	}
	s.Start()
	testctx.WaitUntil(c.t, fmt.Sprintf("node %d to take connections", i), func() bool { return s.ReadyForConnections(time.Second) })
	c.nodes[i] = s
}

// stop stops node i, as a machine that dies.
func (c *testCluster) stop(i int) {
	if s := c.nodes[i]; s != nil {
		s.Shutdown()
		s.WaitForShutdown()
		c.nodes[i] = nil
	}
}

// url names the three servers, as a client is given a cluster.
func (c *testCluster) url() string {
	var urls []string
	for _, p := range c.ports {
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	return strings.Join(urls, ",")
}

// streamLeader returns the node leading the games stream (0 when none
// does at the moment).
func (c *testCluster) streamLeader() int {
	for i, s := range c.nodes {
		if s != nil && s.JetStreamIsStreamLeader(server.DEFAULT_GLOBAL_ACCOUNT, gamesStream) {
			return i
		}
	}
	return 0
}

// cursorKeeper is a learner that keeps the cursor of its last Collect, as
// the run does.
type cursorKeeper struct {
	*Learner
	cursor json.RawMessage
}

func (k *cursorKeeper) Collect(ctx context.Context, req remotegames.Request, add func(train.Sample) error) (remotegames.Result, error) {
	res, err := k.Learner.Collect(ctx, req, add)
	if res.Cursor != nil { // a Collect cut short keeps what it added
		k.cursor = res.Cursor
	}
	return res, err
}

// TestClusterLosesANode trains a pure learner on simulated actors' games
// over a cluster of three servers keeping the games three times (R3). The
// node leading the games stream dies after the first iteration and comes
// back after the second: the learner's iterations go on, and every game
// the cluster acknowledged is taken once.
func TestClusterLosesANode(t *testing.T) {
	const iterations = 4
	dir := t.TempDir()
	cfg := testConfig(t, dir)
	cfg.Distributed.Replicas = 3
	cfg.SelfPlay.GamesPerIteration = 20
	c := startCluster(t)
	conn := ConnectOptions{URL: c.url()}
	ctx := testctx.Context(t)
	nc, err := Connect(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var l *Learner
	tryFor := 2 * time.Second
	testctx.WaitUntil(t, "the cluster's JetStream", func() bool {
		// Each try waits twice as long as the one before: the cluster
		// elects its leaders when it can.
		try, cancel := context.WithTimeout(ctx, tryFor)
		defer cancel()
		tryFor *= 2
		l, err = NewLearner(try, nc, cfg, "cluster-run", nil)
		if err != nil {
			t.Log(err)
		}
		return err == nil
	})
	defer l.Close()
	info, err := l.stream.Info(ctx)
	if err != nil || info.Config.Replicas != 3 {
		t.Fatalf("games stream: %v replicas, %v: want 3", info.Config.Replicas, err)
	}
	var published, ingested idSet
	l.ingested = ingested.add
	src := &cursorKeeper{Learner: l}
	publishNet(t, l, cfg, 0)

	simCtx, stopSim := context.WithCancel(ctx)
	type outcome struct {
		res SimulateResult
		err error
	}
	simDone := make(chan outcome, 1)
	go func() {
		res, err := Simulate(simCtx, SimulateOptions{
			ConnectOptions: conn, Actors: 10, Rate: 40, Duration: time.Hour, Games: 3, Workers: 1, published: published.add,
		})
		simDone <- outcome{res, err}
	}()

	killed := -1
	var atKill, atRestart int
	_, err = train.Run(ctx, cfg, train.RunOptions{
		Iterations: iterations, Remote: src, NoSelfPlay: true,
		OnNetwork: func(v int, net *model.Network) error {
			if err := l.Publish(v, net); err != nil {
				return err
			}
			switch v {
			case 1:
				killed, atKill = c.streamLeader(), published.len()
				c.stop(killed)
			case 2:
				atRestart = published.len()
				c.start(killed)
			}
			return nil
		},
	})
	stopSim()
	out := <-simDone
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if out.err != nil {
		t.Fatalf("simulate: %v", out.err)
	}
	lines, err := metrics.Read(filepath.Join(dir, metrics.File))
	if err != nil || len(lines) != iterations {
		t.Fatalf("metrics: %d iterations, %v: want %d", len(lines), err, iterations)
	}
	if atRestart <= atKill {
		t.Errorf("no game acknowledged while node %d was down (%d before, %d after)", killed, atKill, atRestart)
	}
	// The games acknowledged after the run's last Collect.
	if _, err := l.Collect(ctx, remotegames.Request{Cursor: src.cursor, Version: iterations}, func(train.Sample) error { return nil }); err != nil {
		t.Fatal(err)
	}
	t.Logf("node %d (the stream's leader) down from game %d to %d; simulator: %+v", killed, atKill, atRestart, out.res)
	if int64(published.len()) != out.res.Acknowledged {
		t.Errorf("%d games acknowledged by id, the simulator counts %d", published.len(), out.res.Acknowledged)
	}
	eachIngestedOnce(t, &published, &ingested)
	ingested.mu.Lock()
	defer ingested.mu.Unlock()
	// A game stored whose acknowledgement the stopped simulator did not
	// wait for is taken too, once.
	for id, n := range ingested.ids {
		if n != 1 {
			t.Errorf("game %s: ingested %d times", id, n)
		}
	}
}
