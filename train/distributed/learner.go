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
	"github.com/deathstacks/deathstacks/train/remotegames"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// Learner is the training run's side: it publishes networks and takes the
// actors' games. It is a [remotegames.Source], and its Publish method a
// [train.NetworkHook].
type Learner struct {
	nc     *nats.Conn
	stream jetstream.Stream
	kv     jetstream.KeyValue
	obj    jetstream.ObjectStore
	runID  string
	cfg    runconfig.Config
	log    io.Writer
	sub    *nats.Subscription

	mu    sync.Mutex
	beats map[string]heard
	// published is when each recent network was published, and switches
	// how long after it each actor's first heartbeat with it came: the
	// time until the actor played with it, on the learner's clock.
	published map[int]time.Time
	switches  map[int][]time.Duration

	// ing reads the stream ahead of the run (see [ingester]); iter holds
	// what the current iteration's Collects took.
	ing  *ingester
	iter iteration
	// memory keeps the memory of the samples of games added (a
	// *train.SampleMemory each) for the games checked next: a game's
	// observations are about 75 KB, thousands of games a second.
	memory sync.Pool
	// purged is the stream sequence up to which this learner removed the
	// games its checkpoints took: a Collect asks the server again only
	// after a newer checkpoint.
	purged uint64

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
	Seq uint64 `json:"seq"`
	// Seen is, for each actor, the counter up to which every game was
	// taken; Above the counters taken beyond it (an actor's games may reach
	// the stream out of order within its publish window).
	Seen  map[string]uint64   `json:"seen,omitempty"`
	Above map[string][]uint64 `json:"above,omitempty"`
	// Versions is, for each actor, the newest network version of its
	// games taken. An actor numbers its games in the order it reads their
	// network's version, so none of its games taken or passed over was
	// played by a newer one: once that version is more than max_staleness
	// behind the run, any of them that comes again is stale, and the
	// actor's entries go (see [cursor.prune]).
	Versions map[string]int `json:"versions,omitempty"`
}

// NewLearner sets up the run's stream and buckets on nc, names the run and
// its config for actors, and listens to their heartbeats. runID is the
// run's id (see [RunID]).
func NewLearner(ctx context.Context, nc *nats.Conn, cfg runconfig.Config, runID string, log io.Writer) (*Learner, error) {
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
	if l.stream, l.kv, l.obj, err = setUp(ctx, js, cfg.Distributed.StreamMaxGames, cfg.Distributed.Replicas); err != nil {
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

// Close stops listening and reading; the connection stays the caller's.
func (l *Learner) Close() error {
	if l.ing != nil {
		l.ing.close()
	}
	return l.sub.Unsubscribe()
}

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
	// A cluster that lost the server leading the bucket answers no request
	// until it has elected another: each put is made again until then.
	name := networkObject(version)
	if err := retry(ctx, func(ctx context.Context) error {
		_, err := l.obj.PutBytes(ctx, name, buf.Bytes())
		return err
	}); err != nil {
		return fmt.Errorf("network store: %w", err)
	}
	info, _ := json.Marshal(networkInfo{RunID: l.runID, Version: version, Object: name, Published: start})
	if err := retry(ctx, func(ctx context.Context) error {
		_, err := l.kv.Put(ctx, networkKey, info)
		return err
	}); err != nil {
		return fmt.Errorf("network entry: %w", err)
	}
	// Actors fetch the newest network only; an older one some actor is
	// still downloading can go a few versions later.
	if version >= 3 {
		_ = l.obj.Delete(ctx, networkObject(version-3))
	}
	return nil
}

// actors returns the actors heard from lately, their speeds summed up and
// how many of them are held back.
func (l *Learner) actors() (n int, speed remotegames.Spread, heldBack int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var speeds []float64
	for id, h := range l.beats {
		if time.Since(h.at) > beatTimeout {
			delete(l.beats, id)
			continue
		}
		speeds = append(speeds, h.PositionsPerSec)
		if h.HeldBack {
			heldBack++
		}
	}
	return len(speeds), spread(speeds), heldBack
}

// spread sums up values; zeros for none.
func spread(values []float64) remotegames.Spread {
	if len(values) == 0 {
		return remotegames.Spread{}
	}
	slices.Sort(values)
	var total float64
	for _, v := range values {
		total += v
	}
	return remotegames.Spread{Total: total, Min: values[0], P50: values[(len(values)-1)/2], Max: values[len(values)-1]}
}
