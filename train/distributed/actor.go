package distributed

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// ActorOptions configure an actor.
type ActorOptions struct {
	ConnectOptions
	// ParallelGames and Workers, when above 0, replace the run's
	// selfplay.parallel_games and server.workers on this machine.
	ParallelGames, Workers int
	// Log hears the actor's progress; nil is silent.
	Log io.Writer
	// ProgressEvery is how often a progress line is written; 0 means 10s.
	ProgressEvery time.Duration

	// published and refused, when set (by tests), hear the id of each
	// game the server acknowledged or refused.
	published, refused func(id string)
}

// RunActor plays the run's self-play games on this machine and sends them
// to the learner, until ctx ends; then, if the server is reachable, it
// tries for half a second more to send the games still queued. It fails only for what waiting cannot fix:
// refused credentials, or a run whose config or network it cannot use.
func RunActor(ctx context.Context, o ActorOptions) error {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = 10 * time.Second
	}
	id, err := randomID()
	if err != nil {
		return err
	}
	if o.Name == "" {
		o.Name = "deathstacks actor " + id
	}
	o.ConnectOptions.Log = o.Log
	nc, err := Connect(ctx, o.ConnectOptions)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer nc.Close()
	// A connection closed for good (the server refused the credentials
	// on a reconnect) ends the actor.
	ctx, fail := context.WithCancelCause(ctx)
	defer fail(nil)
	nc.SetClosedHandler(func(c *nats.Conn) {
		fail(fmt.Errorf("connection closed: %v", c.LastError()))
	})
	a := &actor{opts: o, id: id, nc: nc, switched: make(chan struct{}, 1)}
	if err := a.join(ctx); err != nil {
		return a.end(ctx, err)
	}
	a.queue = newQueue(a.cfg.Distributed.QueueGames)
	if a.pub, err = newPublisher(nc, id, a.queue, o.Log); err != nil {
		return err
	}
	a.pub.published, a.pub.refused = o.published, o.refused
	fmt.Fprintf(o.Log, "actor %s: run %s, network %d, %d games at a time\n", id, a.run.RunID, a.net.version(), a.cfg.SelfPlay.ParallelGames)
	return a.end(ctx, a.play(ctx))
}

// end turns the actor's outcome into its error: the context's own end is
// none, a cause given to it is.
func (a *actor) end(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// actor is one running actor.
type actor struct {
	opts  ActorOptions
	id    string
	nc    *nats.Conn
	js    jetstream.JetStream
	kv    jetstream.KeyValue
	obj   jetstream.ObjectStore
	run   runInfo
	cfg   runconfig.Config
	net   *currentNetwork
	queue *queue
	pub   *publisher
	// switched wakes the heartbeat when a new network is in play, so
	// that the learner hears of the switch at once.
	switched chan struct{}

	mu       sync.Mutex
	counter  uint64 // games finished
	heldBack bool   // self-play waits for room in the queue
}

// join waits for the run's bucket and entries, then loads the config and
// the current network.
func (a *actor) join(ctx context.Context) error {
	var err error
	if a.js, err = jetstream.New(a.nc); err != nil {
		return err
	}
	for {
		err = a.findRun(ctx)
		var bad *badRun
		if err == nil || ctx.Err() != nil || errors.As(err, &bad) {
			break
		}
		sleep(ctx, 250*time.Millisecond) // no run yet, or the server is away
	}
	if err != nil {
		return err
	}
	a.net = &currentNetwork{ver: -1}
	for ctx.Err() == nil {
		if err := a.refresh(ctx); err != nil {
			fmt.Fprintf(a.opts.Log, "actor %s: waiting for the network: %v\n", a.id, err)
			sleep(ctx, 500*time.Millisecond)
			continue
		}
		if a.net.version() >= 0 {
			return nil
		}
		sleep(ctx, 250*time.Millisecond)
	}
	return ctx.Err()
}

// findRun reads the run's entry and its config.
func (a *actor) findRun(ctx context.Context) error {
	kv, err := a.js.KeyValue(ctx, kvBucket)
	if err != nil {
		return err
	}
	entry, err := kv.Get(ctx, runKey)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(entry.Value(), &a.run); err != nil {
		return &badRun{fmt.Errorf("the run's entry: %w", err)}
	}
	cfg, err := runconfig.Parse([]byte(a.run.Config))
	if err != nil {
		return &badRun{fmt.Errorf("the run's config: %w", err)}
	}
	if a.opts.ParallelGames > 0 {
		cfg.SelfPlay.ParallelGames = a.opts.ParallelGames
	}
	if a.opts.Workers > 0 {
		cfg.Server.Workers = a.opts.Workers
	}
	if a.obj, err = a.js.ObjectStore(ctx, netsBucket); err != nil {
		return err
	}
	a.kv, a.cfg = kv, cfg
	return nil
}

// badRun is a run this actor cannot play for: waiting does not help.
type badRun struct{ err error }

func (e *badRun) Error() string { return e.err.Error() }
func (e *badRun) Unwrap() error { return e.err }

// refresh switches to the network the run names, if it is a newer one.
func (a *actor) refresh(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	entry, err := a.kv.Get(ctx, networkKey)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil // the learner has not published one yet
	}
	if err != nil {
		return err
	}
	var info networkInfo
	if err := json.Unmarshal(entry.Value(), &info); err != nil {
		return fmt.Errorf("the network entry: %w", err)
	}
	if info.RunID != a.run.RunID {
		return fmt.Errorf("the network entry names run %q, not %q: the learner restarted as a new run", info.RunID, a.run.RunID)
	}
	if info.Version <= a.net.version() {
		return nil
	}
	data, err := a.obj.GetBytes(ctx, info.Object)
	if err != nil {
		return fmt.Errorf("network %s: %w", info.Object, err)
	}
	net, err := model.ReadNetwork(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("network %s: %w", info.Object, err)
	}
	if err := net.CheckConfig(a.cfg.Model); err != nil {
		return fmt.Errorf("network %s: %w", info.Object, err)
	}
	old := a.net.version()
	if err := a.net.swap(net, info.Version); err != nil {
		return fmt.Errorf("network %s: %w", info.Object, err)
	}
	if old >= 0 {
		// Published is on the learner's clock: across machines this
		// figure includes the clocks' offset (the learner's own, in its
		// metrics, does not).
		fmt.Fprintf(a.opts.Log, "actor %s: playing with network %d, %d ms after it was published\n",
			a.id, info.Version, time.Since(info.Published).Milliseconds())
	}
	select {
	case a.switched <- struct{}{}:
	default:
	}
	return nil
}

// play runs self-play, the sender, the network watcher and the heartbeat
// until ctx ends.
func (a *actor) play(ctx context.Context) error {
	var wg sync.WaitGroup
	sendCtx, stopSending := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSending()
	wg.Add(1)
	go func() { defer wg.Done(); a.pub.run(sendCtx) }()
	side, stopSide := context.WithCancel(ctx)
	var sideWG sync.WaitGroup
	sideWG.Add(3)
	go func() { defer sideWG.Done(); a.watch(side) }()
	go func() { defer sideWG.Done(); a.heartbeat(side) }()
	go func() { defer sideWG.Done(); a.progress(side) }()

	seed, err := randomSeed()
	if err != nil {
		stopSide()
		return err
	}
	err = train.SelfPlay(ctx, a.cfg, a.net.network(), seed, func(g train.SelfPlayGame) error { return a.finished(ctx, g) })
	stopSide()
	sideWG.Wait()
	// Games finished but not sent get a moment more, if the server is
	// there to take them: a stopped actor should be gone within a second.
	a.queue.close()
	if a.nc.IsConnected() {
		defer time.AfterFunc(flushWait, stopSending).Stop()
	} else {
		stopSending()
	}
	wg.Wait()
	if left := a.queue.len(); left > 0 {
		fmt.Fprintf(a.opts.Log, "actor %s: stopped with %d games unsent\n", a.id, left)
	}
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// flushWait bounds the time a stopping actor spends sending the games it
// finished: a publish is acknowledged in milliseconds when the server is
// there.
const flushWait = 500 * time.Millisecond

// finished queues a finished game for sending, waiting while the queue
// is full: the server refuses games (the learner is behind) or is away.
func (a *actor) finished(ctx context.Context, g train.SelfPlayGame) error {
	if len(g.Samples) == 0 {
		return nil // a short game whose moves were all fast searches: nothing to train on
	}
	// The version is read with the counter, so that a game of a higher
	// counter never has an older network (the learner's cursor counts on
	// it).
	a.mu.Lock()
	a.counter++
	n, version := a.counter, a.net.version()
	a.mu.Unlock()
	r := newRecord(g, a.run.RunID, a.id, n, version)
	data, err := r.encode()
	if err != nil {
		return err
	}
	m := message{id: r.id(), data: data, positions: len(g.Samples), queued: time.Now()}
	if a.queue.offer(m) {
		return nil
	}
	if !a.setHeldBack(true) {
		fmt.Fprintf(a.opts.Log, "actor %s: %d games wait for the server: self-play waits for room (back-pressure)\n", a.id, a.cfg.Distributed.QueueGames)
	}
	if !a.queue.push(ctx, m) {
		return ctx.Err()
	}
	if a.setHeldBack(false) {
		fmt.Fprintf(a.opts.Log, "actor %s: the queue has room again: self-play goes on\n", a.id)
	}
	return nil
}

// setHeldBack records whether self-play waits for room in the queue and
// returns what it was before.
func (a *actor) setHeldBack(on bool) (was bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	was, a.heldBack = a.heldBack, on
	return was
}

// watch switches networks as the learner publishes them: at once through
// a watcher of the entry, and by polling, since a watcher goes silent for a
// while after the server restarts.
func (a *actor) watch(ctx context.Context) {
	poll := time.NewTicker(500 * time.Millisecond)
	defer poll.Stop()
	var updates <-chan jetstream.KeyValueEntry
	for ctx.Err() == nil {
		if updates == nil {
			if w, err := a.kv.Watch(ctx, networkKey, jetstream.UpdatesOnly()); err == nil {
				updates = w.Updates()
			}
		}
		select {
		case <-ctx.Done():
			return
		case _, ok := <-updates:
			if !ok {
				updates = nil
			}
		case <-poll.C:
		}
		if err := a.refresh(ctx); err != nil && ctx.Err() == nil {
			fmt.Fprintf(a.opts.Log, "actor %s: %v\n", a.id, err)
		}
	}
}

// stats returns what the actor has sent so far and whether it is held
// back: self-play waiting for room in the queue, or the server refusing
// games.
func (a *actor) stats() (sent, positions int64, heldBack bool) {
	sent, positions, refusing := a.pub.stats()
	a.mu.Lock()
	defer a.mu.Unlock()
	return sent, positions, refusing || a.heldBack
}

// heartbeat tells the learner the actor is there and how fast it goes.
func (a *actor) heartbeat(ctx context.Context) {
	tick := time.NewTicker(beatEvery)
	defer tick.Stop()
	start := time.Now()
	for {
		sent, positions, held := a.stats()
		data, _ := json.Marshal(beat{
			Actor: a.id, Version: a.net.version(), Games: sent, Positions: positions,
			PositionsPerSec: float64(positions) / time.Since(start).Seconds(), Queued: a.queue.len(), HeldBack: held,
		})
		_ = a.nc.Publish(actorsSubject+"."+a.id, data) // buffered while disconnected
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-a.switched:
		}
	}
}

// progress writes a line now and then.
func (a *actor) progress(ctx context.Context) {
	tick := time.NewTicker(a.opts.ProgressEvery)
	defer tick.Stop()
	start := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		sent, positions, held := a.stats()
		state := "connected"
		switch {
		case !a.nc.IsConnected():
			state = "disconnected, waiting"
		case held:
			state = "held back by the learner"
		}
		fmt.Fprintf(a.opts.Log, "actor %s: network %d, %d games sent, %d queued, %.0f positions/s, %s\n",
			a.id, a.net.version(), sent, a.queue.len(), float64(positions)/time.Since(start).Seconds(), state)
	}
}

// currentNetwork is the network an actor plays: the first one it
// received, whose weights each newer version replaces (Blend with share
// 1), so that the engines of self-play's lanes take them up at their next
// batch, with no evaluation waiting for the switch.
type currentNetwork struct {
	mu  sync.RWMutex
	net *model.Network
	ver int
}

// swap makes net, of the given version, the one played.
func (c *currentNetwork) swap(net *model.Network, version int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.net == nil {
		c.net = net
	} else if err := c.net.Blend(net, 1); err != nil {
		return err
	}
	c.ver = version
	return nil
}

// network is the network played, nil before the first.
func (c *currentNetwork) network() *model.Network {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.net
}

// version is the version of the network played, -1 before the first.
func (c *currentNetwork) version() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.ver
}

func randomID() (string, error) {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

func randomSeed() (uint64, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
