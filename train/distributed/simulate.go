package distributed

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/deathstacks/deathstacks/train"
)

// SimulateOptions configure a load generator: simulated actors that send
// real self-play games again, each time as a new game of their own, at a
// chosen rate.
type SimulateOptions struct {
	ConnectOptions
	// Actors is the number of simulated actors; Rate the games a second
	// they send together; Duration how long they make games.
	Actors   int
	Rate     float64
	Duration time.Duration
	// Games is the number of real games played first, with the run's
	// config and network, and sent again and again; 0 means 16.
	// ParallelGames and Workers, when above 0, replace the run's settings
	// for playing them.
	Games, ParallelGames, Workers int
	// Log hears the progress; nil is silent.
	Log io.Writer
	// ProgressEvery is how often a progress line is written; 0 means 10s.
	ProgressEvery time.Duration

	// published, when set (by tests), hears the id of each game the server
	// acknowledged.
	published func(id string)
}

// SimulateResult is what a load generator did.
type SimulateResult struct {
	// Made counts the games the simulated actors made; Acknowledged those
	// the server acknowledged; HeldBack the games not made because the
	// actor's queue was full (the learner behind); Unsent those still
	// queued at the end, which the server may or may not have stored.
	Made, Acknowledged, HeldBack, Unsent int64
	// Elapsed is the time from the first game made to the last
	// acknowledgement awaited.
	Elapsed time.Duration
}

// simActorsPerConn is how many simulated actors share a connection.
const simActorsPerConn = 100

// simDrain bounds the wait, once the simulated actors stop making games,
// for the server to acknowledge the games queued.
const simDrain = 30 * time.Second

// simulated is one simulated actor.
type simulated struct {
	id      string
	nc      *nats.Conn
	queue   *queue
	pub     *publisher
	counter uint64
}

// Simulate runs the load generator: it joins the run as an actor does,
// plays o.Games real games, then makes o.Rate games a second for
// o.Duration, each a real game sent again as the next game of one of
// o.Actors simulated actors (its own id, counter and the current network
// version), which publish them as real actors do. It returns once the
// games made are acknowledged (or simDrain has passed), or ctx ends.
func Simulate(ctx context.Context, o SimulateOptions) (SimulateResult, error) {
	switch {
	case o.Actors < 1:
		return SimulateResult{}, fmt.Errorf("simulate: %d actors: want 1 or more", o.Actors)
	case !(o.Rate > 0):
		return SimulateResult{}, fmt.Errorf("simulate: rate %v games/s: want above 0", o.Rate)
	case o.Duration <= 0:
		return SimulateResult{}, fmt.Errorf("simulate: duration %v: want above 0", o.Duration)
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Games <= 0 {
		o.Games = 16
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = 10 * time.Second
	}
	// The simulator joins and follows the run as an actor does, and plays
	// the real games with it.
	id, err := randomID()
	if err != nil {
		return SimulateResult{}, err
	}
	o.ConnectOptions.Log = o.Log
	conn := o.ConnectOptions
	conn.Name = "deathstacks simulator " + id
	nc, err := Connect(ctx, conn)
	if err != nil {
		return SimulateResult{}, err
	}
	defer nc.Close()
	a := &actor{opts: ActorOptions{ConnectOptions: conn, ParallelGames: o.ParallelGames, Workers: o.Workers, Log: o.Log}, id: id, nc: nc, switched: make(chan struct{}, 1)}
	if err := a.join(ctx); err != nil {
		return SimulateResult{}, err
	}
	side, stopSide := context.WithCancel(ctx)
	defer stopSide()
	go a.watch(side)
	start := time.Now()
	pool, err := realGames(ctx, a, o.Games)
	if err != nil {
		return SimulateResult{}, err
	}
	fmt.Fprintf(o.Log, "simulate: %d real games played in %.1fs (run %s, network %d); %d actors sending %g games/s for %v\n",
		len(pool), time.Since(start).Seconds(), a.run.RunID, a.net.version(), o.Actors, o.Rate, o.Duration)

	s := &simulator{o: o, a: a, pool: pool}
	defer s.closeConns()
	if err := s.start(ctx); err != nil {
		return SimulateResult{}, err
	}
	return s.run(ctx), nil
}

// realGames plays n self-play games with the actor's run and network.
func realGames(ctx context.Context, a *actor, n int) ([]train.SelfPlayGame, error) {
	ctx, done := context.WithCancel(ctx)
	defer done()
	var mu sync.Mutex
	var games []train.SelfPlayGame
	seed, err := randomSeed()
	if err != nil {
		return nil, err
	}
	err = train.SelfPlay(ctx, a.cfg, a.net.network(), seed, func(g train.SelfPlayGame) error {
		mu.Lock()
		defer mu.Unlock()
		if len(g.Samples) > 0 && len(games) < n {
			games = append(games, g)
		}
		if len(games) == n {
			done()
		}
		return nil
	})
	if len(games) < n {
		if err == nil {
			err = ctx.Err()
		}
		return nil, fmt.Errorf("simulate: %d real games of %d played: %w", len(games), n, err)
	}
	return games, nil
}

// simulator is a running load generator.
type simulator struct {
	o      SimulateOptions
	a      *actor
	pool   []train.SelfPlayGame
	conns  []*nats.Conn
	actors []*simulated

	mu             sync.Mutex
	made, heldBack int64
}

// start connects the simulated actors, simActorsPerConn to a connection.
func (s *simulator) start(ctx context.Context) error {
	for i := 0; i < s.o.Actors; i++ {
		if i%simActorsPerConn == 0 {
			conn := s.o.ConnectOptions
			conn.Name = fmt.Sprintf("deathstacks simulator %s %d", s.a.id, len(s.conns))
			nc, err := Connect(ctx, conn)
			if err != nil {
				return err
			}
			s.conns = append(s.conns, nc)
		}
		id, err := randomID()
		if err != nil {
			return err
		}
		// A simulated actor keeps one window of games: a thousand of them
		// keeping a real actor's queue each would hold gigabytes.
		q := newQueue(min(s.a.cfg.Distributed.QueueGames, publishWindow))
		nc := s.conns[len(s.conns)-1]
		p, err := newPublisher(nc, id, q, io.Discard)
		if err != nil {
			return err
		}
		p.published = s.o.published
		s.actors = append(s.actors, &simulated{id: id, nc: nc, queue: q, pub: p})
	}
	return nil
}

func (s *simulator) closeConns() {
	for _, nc := range s.conns {
		nc.Close()
	}
}

// run makes the games for the duration, then waits for their
// acknowledgements.
func (s *simulator) run(ctx context.Context) SimulateResult {
	sendCtx, stopSending := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSending()
	var wg sync.WaitGroup
	for _, sa := range s.actors {
		wg.Add(1)
		go func() { defer wg.Done(); sa.pub.run(sendCtx) }()
	}
	side, stopSide := context.WithCancel(ctx)
	var sideWG sync.WaitGroup
	sideWG.Add(2)
	go func() { defer sideWG.Done(); s.heartbeat(side) }()
	start := time.Now()
	go func() { defer sideWG.Done(); s.progress(side, start) }()

	s.make(ctx, start)
	made := time.Since(start)
	for _, sa := range s.actors {
		sa.queue.close()
	}
	// The games made get simDrain to be acknowledged; after a stop, as an
	// actor's, half a second.
	drain := simDrain
	if ctx.Err() != nil {
		drain = flushWait
	}
	defer time.AfterFunc(drain, stopSending).Stop()
	wg.Wait()
	stopSide()
	sideWG.Wait()
	res := SimulateResult{Elapsed: time.Since(start)}
	s.mu.Lock()
	res.Made, res.HeldBack = s.made, s.heldBack
	s.mu.Unlock()
	for _, sa := range s.actors {
		sent, _, _ := sa.pub.stats()
		res.Acknowledged += sent
		res.Unsent += int64(sa.queue.len())
	}
	fmt.Fprintf(s.o.Log, "simulate: %d games made in %.1fs (%.0f/s), %d not made (held back by the learner), %d unsent at the end\n",
		res.Made, made.Seconds(), float64(res.Made)/made.Seconds(), res.HeldBack, res.Unsent)
	return res
}

// make makes the games at the rate until the duration is over or ctx
// ends: game k, due at k/Rate seconds after start, goes to actor k mod
// Actors.
func (s *simulator) make(ctx context.Context, start time.Time) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	rng := rand.New(rand.NewPCG(uint64(start.UnixNano()), 1))
	due := int64(s.o.Rate * s.o.Duration.Seconds())
	var k int64
	told := false
	for k < due {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		now := min(int64(s.o.Rate*time.Since(start).Seconds()), due)
		for ; k < now; k++ {
			sa := s.actors[k%int64(len(s.actors))]
			g := s.pool[rng.IntN(len(s.pool))]
			sa.counter++
			r := newRecord(g, s.a.run.RunID, sa.id, sa.counter, s.a.net.version())
			data, err := r.encode()
			if err != nil {
				fmt.Fprintf(s.o.Log, "simulate: %v\n", err) // a real game: cannot happen
				continue
			}
			ok := sa.queue.offer(message{id: r.id(), data: data, positions: len(g.Samples), queued: time.Now()})
			s.mu.Lock()
			if ok {
				s.made++
			} else {
				sa.counter-- // the game was never made: the counters stay dense
				s.heldBack++
			}
			s.mu.Unlock()
			if !ok && !told {
				fmt.Fprintf(s.o.Log, "simulate: an actor's queue is full (%d games): the learner holds the actors back; games are not made until there is room\n", sa.queue.limit)
				told = true
			}
		}
	}
}

// heartbeat tells the learner, for each simulated actor, that it is there.
func (s *simulator) heartbeat(ctx context.Context) {
	tick := time.NewTicker(beatEvery)
	defer tick.Stop()
	start := time.Now()
	for {
		for _, sa := range s.actors {
			sent, positions, refusing := sa.pub.stats()
			data, _ := json.Marshal(beat{
				Actor: sa.id, Version: s.a.net.version(), Games: sent, Positions: positions,
				PositionsPerSec: float64(positions) / time.Since(start).Seconds(), Queued: sa.queue.len(),
				HeldBack: refusing || sa.queue.full(),
			})
			_ = sa.nc.Publish(actorsSubject+"."+sa.id, data)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// progress writes a line now and then.
func (s *simulator) progress(ctx context.Context, start time.Time) {
	tick := time.NewTicker(s.o.ProgressEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		var acked, queued, held int64
		for _, sa := range s.actors {
			sent, _, refusing := sa.pub.stats()
			acked += sent
			queued += int64(sa.queue.len())
			if refusing || sa.queue.full() {
				held++
			}
		}
		s.mu.Lock()
		made, heldBack := s.made, s.heldBack
		s.mu.Unlock()
		sec := time.Since(start).Seconds()
		fmt.Fprintf(s.o.Log, "simulate: %.0fs: %d games made, %d acknowledged (%.0f/s), %d queued, %d not made, %d actors held back\n",
			sec, made, acked, float64(acked)/sec, queued, heldBack, held)
	}
}
