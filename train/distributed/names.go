package distributed

import (
	"context"
	"fmt"
	"time"

	"github.com/deathstacks/deathstacks/train/distributed/natsserver"
	"github.com/nats-io/nats.go/jetstream"
)

// What a run keeps in NATS: one run per NATS account (a new run refuses
// the games of an older one by its run id).
const (
	gamesStream   = "DEATHSTACKS_GAMES"
	gamesSubject  = "deathstacks.games"
	actorsSubject = "deathstacks.actors" // + "." + actor id: heartbeats
	kvBucket      = "deathstacks"
	netsBucket    = "deathstacks-nets"
	runKey        = "run"     // runInfo
	networkKey    = "network" // networkInfo
)

// dedupWindow is how long the stream remembers a game's id: a retry of a
// publish comes well within it (an acknowledgement is awaited 5 s; a
// cluster that lost a node elects a new leader within about 10 s), and the
// learner's counters catch any later one. The server keeps each id in a
// map on the learner's heap, which the garbage collector marks in every
// cycle: at 2,500 games a second a window of 10 minutes holds 1.5
// million ids, and marking them slows every cycle (and training with it)
// all run long.
const dedupWindow = time.Minute

// beatEvery is how often an actor says it is there; an actor silent for
// beatTimeout is counted as gone.
const (
	beatEvery   = time.Second
	beatTimeout = 5 * beatEvery
)

// runInfo is the value of runKey: what an actor needs to play the run's
// games.
type runInfo struct {
	RunID  string `json:"run_id"`
	Config string `json:"config"`
}

// networkInfo is the value of networkKey: the current network.
type networkInfo struct {
	RunID   string `json:"run_id"`
	Version int    `json:"version"`
	Object  string `json:"object"`
	// Published is when the learner began to publish it (its clock), so
	// that an actor can say how long its switch took.
	Published time.Time `json:"published"`
}

// beat is an actor's heartbeat.
type beat struct {
	Actor string `json:"actor"`
	// Version is the network the actor plays with.
	Version int `json:"version"`
	// Games and Positions count what it sent; PositionsPerSec is its
	// self-play speed over the last few seconds.
	Games           int64   `json:"games"`
	Positions       int64   `json:"positions"`
	PositionsPerSec float64 `json:"positions_per_sec"`
	Queued          int     `json:"queued"`
	// HeldBack says the learner holds the actor back: the server refuses
	// its games (the stream is full), or its queue is full.
	HeldBack bool `json:"held_back,omitempty"`
}

func networkObject(version int) string { return fmt.Sprintf("net-%06d", version) }

// setUp creates (or finds) the stream, bucket and object store of a run,
// each kept by the given number of servers of a cluster; the stream keeps
// at most maxGames games and refuses more (DiscardNew), never dropping one
// the learner has not taken.
func setUp(ctx context.Context, js jetstream.JetStream, maxGames, replicas int) (jetstream.Stream, jetstream.KeyValue, jetstream.ObjectStore, error) {
	stream, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: gamesStream, Subjects: []string{gamesSubject},
		Storage: jetstream.FileStorage, Duplicates: dedupWindow, Replicas: replicas,
		MaxMsgSize: natsserver.MaxPayload, MaxMsgs: int64(maxGames), Discard: jetstream.DiscardNew,
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("games stream: %w", err)
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: kvBucket, History: 1, Storage: jetstream.FileStorage, Replicas: replicas})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("key-value bucket: %w", err)
	}
	obj, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: netsBucket, Storage: jetstream.FileStorage, Replicas: replicas})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("network store: %w", err)
	}
	return stream, kv, obj, nil
}
