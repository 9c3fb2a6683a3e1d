package distributed

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
)

// Learner is the training run's side: it publishes networks and takes the
// actors' games. It is a [train.RemoteSource], and its Publish method a
// [train.NetworkHook].
type Learner struct {
	nc     *nats.Conn
	stream jetstream.Stream
	kv     jetstream.KeyValue
	obj    jetstream.ObjectStore
	runID  string
	cfg    train.Config
	log    io.Writer
	sub    *nats.Subscription

	mu    sync.Mutex
	beats map[string]heard
	// published is when each recent network was published, and switches
	// how long after it each actor's first heartbeat with it came: the
	// time until the actor played with it, on the learner's clock.
	published map[int]time.Time
	switches  map[int][]time.Duration

	// ingested, when set (by tests), hears the id of each game added.
	ingested func(id string)
}

// heard is an actor's last heartbeat and when it came.
type heard struct {
	beat
	at time.Time
}

// cursor is the learner's position in the games stream, kept in the run's
// checkpoint: the last stream sequence read and, for each actor, the
// highest game counter taken (an actor sends its games in order).
type cursor struct {
	Seq  uint64            `json:"seq"`
	Seen map[string]uint64 `json:"seen,omitempty"`
}

// NewLearner sets up the run's stream and buckets on nc, names the run and
// its config for actors, and listens to their heartbeats. runID is the
// run's id (see [RunID]).
func NewLearner(ctx context.Context, nc *nats.Conn, cfg train.Config, runID string, log io.Writer) (*Learner, error) {
	if log == nil {
		log = io.Discard
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	l := &Learner{
		nc: nc, runID: runID, cfg: cfg, log: log,
		beats: map[string]heard{}, published: map[int]time.Time{}, switches: map[int][]time.Duration{},
	}
	if l.stream, l.kv, l.obj, err = setUp(ctx, js, cfg.Distributed.StreamMaxGames); err != nil {
		return nil, err
	}
	text, err := cfg.YAML()
	if err != nil {
		return nil, err
	}
	info, _ := json.Marshal(runInfo{RunID: runID, Config: string(text)})
	if _, err := l.kv.Put(ctx, runKey, info); err != nil {
		return nil, fmt.Errorf("publish the run: %w", err)
	}
	l.sub, err = nc.Subscribe(actorsSubject+".*", func(m *nats.Msg) {
		var b beat
		if json.Unmarshal(m.Data, &b) != nil || b.Actor == "" {
			return
		}
		l.heard(b, time.Now())
	})
	if err != nil {
		return nil, fmt.Errorf("actor heartbeats: %w", err)
	}
	return l, nil
}

// heard records an actor's heartbeat, and the switch it tells of: an
// actor sends one at once when it starts playing with a new network.
func (l *Learner) heard(b beat, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if prev, ok := l.beats[b.Actor]; ok && b.Version > prev.Version {
		if t0, ok := l.published[b.Version]; ok {
			l.switches[b.Version] = append(l.switches[b.Version], at.Sub(t0))
		}
	}
	l.beats[b.Actor] = heard{beat: b, at: at}
}

// switchDelays returns how long each actor that switched to the network
// of the given version took to play with it.
func (l *Learner) switchDelays(version int) []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.switches[version])
}

// Close stops listening; the connection stays the caller's.
func (l *Learner) Close() error { return l.sub.Unsubscribe() }

// Publish makes net, of the given version, the one actors play with.
func (l *Learner) Publish(version int, net *model.Network) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	l.mu.Lock()
	l.published[version] = start
	// Switches to a network come within seconds of it: a few versions
	// back is plenty to remember.
	delete(l.published, version-3)
	delete(l.switches, version-3)
	l.mu.Unlock()
	var buf bytes.Buffer
	if _, err := net.WriteTo(&buf); err != nil {
		return err
	}
	name := networkObject(version)
	if _, err := l.obj.PutBytes(ctx, name, buf.Bytes()); err != nil {
		return fmt.Errorf("network store: %w", err)
	}
	info, _ := json.Marshal(networkInfo{RunID: l.runID, Version: version, Object: name, Published: start})
	if _, err := l.kv.Put(ctx, networkKey, info); err != nil {
		return fmt.Errorf("network entry: %w", err)
	}
	// Actors fetch the newest network only; an older one some actor is
	// still downloading can go a few versions later.
	if version >= 3 {
		_ = l.obj.Delete(ctx, networkObject(version-3))
	}
	return nil
}

// actors returns the actors heard from lately and their speeds.
func (l *Learner) actors() (int, map[string]float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	speeds := map[string]float64{}
	for id, h := range l.beats {
		if time.Since(h.at) > beatTimeout {
			delete(l.beats, id)
			continue
		}
		speeds[id] = h.PositionsPerSec
	}
	return len(speeds), speeds
}

// Collect implements [train.RemoteSource]: it reads the stream after the
// cursor, at least up to the last game stored when it was called, and on
// until req.MinGames games are added.
func (l *Learner) Collect(ctx context.Context, req train.RemoteRequest, add func(train.Sample) error) (res train.RemoteResult, err error) {
	cur := cursor{Seen: map[string]uint64{}}
	if len(req.Cursor) > 0 {
		if err := json.Unmarshal(req.Cursor, &cur); err != nil {
			return train.RemoteResult{}, fmt.Errorf("stream position in the checkpoint: %w", err)
		}
		if cur.Seen == nil {
			cur.Seen = map[string]uint64{}
		}
	}
	defer func() {
		res.Cursor, _ = json.Marshal(cur)
		res.Actors, res.ActorPositionsPerSec = l.actors()
		if d := l.switchDelays(req.Version); len(d) > 0 {
			res.NetworkSwitchMs = float64(slices.Max(d)) / float64(time.Millisecond)
		}
	}()
	// The cursor is the one of the last checkpoint: the games before it
	// are taken for good, and their room goes to new ones.
	if cur.Seq > 0 {
		if err := l.stream.Purge(ctx, jetstream.WithPurgeSequence(cur.Seq+1)); err != nil {
			return res, fmt.Errorf("games stream: remove the games taken: %w", err)
		}
	}
	info, err := l.stream.Info(ctx)
	if err != nil {
		return res, fmt.Errorf("games stream: %w", err)
	}
	last := info.State.LastSeq
	if cur.Seq >= last && req.MinGames == 0 {
		return res, nil
	}
	cons, err := l.stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		DeliverPolicy: jetstream.DeliverByStartSequencePolicy, OptStartSeq: cur.Seq + 1,
	})
	if err != nil {
		return res, fmt.Errorf("games stream: %w", err)
	}
	var lag int
	for cur.Seq < last || res.Games < req.MinGames {
		msg, err := cons.Next(jetstream.FetchMaxWait(time.Second))
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		if err != nil {
			// Nothing yet, or the server is away: the consumer resumes.
			// But a stream full of games read, dropped ones among them,
			// takes no more until the checkpoint frees it: train on what
			// came.
			if cur.Seq >= last && l.full(ctx, cur.Seq) {
				fmt.Fprintf(l.log, "games stream full (%d games kept until the checkpoint): going on with %d games of %d\n",
					l.cfg.Distributed.StreamMaxGames, res.Games, req.MinGames)
				break
			}
			continue
		}
		md, err := msg.Metadata()
		if err != nil {
			continue
		}
		cur.Seq = md.Sequence.Stream
		g, err := l.take(msg.Data(), req.Version, &cur, add)
		switch {
		case err == errStale:
			res.Stale++
		case err == errDuplicate:
			res.Duplicate++
		case err != nil:
			res.Invalid++
			fmt.Fprintf(l.log, "dropped game at stream sequence %d: %v\n", cur.Seq, err)
		default:
			res.Games++
			res.Positions += g.positions
			res.Plies += g.plies
			if g.decided {
				res.Decided++
			}
			lag += req.Version - g.version
		}
	}
	if res.Games > 0 {
		res.VersionLag = float64(lag) / float64(res.Games)
	}
	return res, nil
}

// full reports that the stream holds as many games as it may, all of
// them read up to seq.
func (l *Learner) full(ctx context.Context, seq uint64) bool {
	info, err := l.stream.Info(ctx)
	return err == nil && info.State.Msgs >= uint64(l.cfg.Distributed.StreamMaxGames) && info.State.LastSeq <= seq
}

var (
	errStale     = fmt.Errorf("stale")
	errDuplicate = fmt.Errorf("duplicate")
)

// taken is what one game brought.
type taken struct {
	positions, plies, version int
	decided                   bool
}

// take checks one game record and adds its samples.
func (l *Learner) take(data []byte, version int, cur *cursor, add func(train.Sample) error) (taken, error) {
	r, err := decodeRecord(data)
	switch {
	case err != nil:
		return taken{}, err
	case r.RunID != l.runID:
		return taken{}, fmt.Errorf("game %s of run %q, not this run (%q)", r.id(), r.RunID, l.runID)
	case r.Version > version:
		return taken{}, fmt.Errorf("game %s played by network %d, newer than the run's %d", r.id(), r.Version, version)
	case r.Counter <= cur.Seen[r.Actor]:
		return taken{}, errDuplicate
	}
	cur.Seen[r.Actor] = r.Counter
	if version-r.Version > l.cfg.Distributed.MaxStaleness {
		return taken{}, errStale
	}
	samples, decided, err := r.samples(l.cfg.Env.Rules)
	if err != nil {
		return taken{}, fmt.Errorf("game %s: %w", r.id(), err)
	}
	for _, s := range samples {
		if err := add(s); err != nil {
			return taken{}, fmt.Errorf("game %s: %w", r.id(), err)
		}
	}
	if l.ingested != nil {
		l.ingested(r.id())
	}
	return taken{positions: len(samples), plies: len(r.Moves), version: r.Version, decided: decided}, nil
}
