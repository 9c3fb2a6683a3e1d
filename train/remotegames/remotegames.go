// Package remotegames is how the games other machines play come into a
// training run: the [Source] that train.Run asks for them (package
// train/distributed is one), what it asks ([Request]) and what each call
// brought ([Result]), which the run's metrics record.
package remotegames

import (
	"context"
	"encoding/json"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/metrics"
)

// Source brings the games other machines play into a run (see
// package train/distributed). train.Run asks it after each iteration's local
// self-play, then again and again (MinGames 0, the cursor of the previous
// call) while it trains, and while it writes the iteration's checkpoint:
// the games taken then count in the next iteration, and the stream keeps
// them until its checkpoint (req.Saved is the previous one meanwhile).
type Source interface {
	// Collect adds the samples of the games that arrived after req.Cursor
	// through add, waiting until at least req.MinGames games are added (or
	// ctx ends), and returns the cursor just past the last game it read,
	// also when ctx ends (the games added so far stay added). add copies
	// what it keeps of a sample: the source may reuse its memory.
	// The run keeps that cursor in its next checkpoint and hands it back
	// after a resume, so a game is taken once even across a crash.
	Collect(ctx context.Context, req Request, add func(model.Sample) error) (Result, error)
}

// ReadAheadSource is a [Source] that reads its games ahead of the
// Collects. train.Run calls ReadAhead with the cursor the run goes on from
// (nil for a new run) before it makes or loads its network and replay
// buffer, so that the games that come meanwhile are read and checked by
// the time of the first Collect, which hands it that cursor again.
type ReadAheadSource interface {
	Source
	ReadAhead(cursor json.RawMessage) error
}

// Request is what the run asks of a [Source].
type Request struct {
	// Cursor is the position in the source reached so far, as a Collect
	// returned it; nil at the start of a run.
	Cursor json.RawMessage
	// Saved is the cursor of the run's last checkpoint (nil before the
	// first): the source may forget what lies before it. It is Cursor at
	// an iteration's first Collect.
	Saved json.RawMessage
	// Version is the iteration of the network self-play uses now.
	Version int
	// MinGames is the number of games to wait for; 0 takes what is there.
	MinGames int
	// First marks the first Collect of an iteration: the figures of the
	// result (rate and delays) count from it.
	First bool
}

// Result is what one Collect brought.
type Result struct {
	// Cursor is the position to continue from.
	Cursor json.RawMessage
	// Games and Positions count the games (and their samples) added;
	// Plies sums their lengths (random opening plies included) and Decided
	// counts those won (resigned ones too), not drawn or cut short.
	Games, Positions, Plies, Decided int
	// Stale, Invalid and Duplicate count the games dropped: made by a
	// network too old, malformed, or already taken.
	Stale, Invalid, Duplicate int
	// Actors is the number of machines sending games now.
	Actors int
	// ActorPositionsPerSec sums up the actors' self-play speeds.
	ActorPositionsPerSec Spread
	// VersionLag is the mean number of versions the added games' networks
	// were behind Version.
	VersionLag float64
	// NetworkSwitchMs is the time from the network of Version being
	// published to the last actor that switched to it playing with it,
	// in milliseconds; 0 when no actor switched.
	NetworkSwitchMs float64
	// ActorsHeldBack counts the actors the learner holds back: the server
	// refuses their games (the stream is full) or their queue is full.
	ActorsHeldBack int
	// IngestGamesPerSec is the games added per second since the previous
	// Collect ended (the iteration's rate); Backlog the games left in the
	// source after Cursor.
	IngestGamesPerSec float64
	Backlog           int
	// PublishToWindowMs is the delay from an actor queueing a game to its
	// positions entering the window (the replay buffer); PublishToCheckedMs
	// to the game being checked and replayed, ready to enter it; the
	// stages before: PublishToStoredMs to the server storing it (the
	// server's clock), PublishToFetchedMs to the learner having read it.
	PublishToWindowMs, PublishToCheckedMs Percentiles
	PublishToStoredMs, PublishToFetchedMs Percentiles
}

// Percentiles summarize delays, in milliseconds.
type Percentiles struct {
	P50, P99, Max float64
}

// Spread sums up a figure of many actors: its total, and the least, the
// median and the largest of them.
type Spread struct {
	Total, Min, P50, Max float64
}

// Merge adds the figures of a later Collect of the same iteration: its
// counts to these, its cursor, actors and figures over the iteration in
// place of these. A result without a cursor brought nothing.
func (r *Result) Merge(more Result) {
	if more.Cursor == nil {
		return // a Collect that failed before it read anything
	}
	r.Cursor = more.Cursor
	lag := r.VersionLag*float64(r.Games) + more.VersionLag*float64(more.Games)
	r.Games += more.Games
	r.Positions += more.Positions
	r.Plies += more.Plies
	r.Decided += more.Decided
	r.Stale += more.Stale
	r.Invalid += more.Invalid
	r.Duplicate += more.Duplicate
	if r.Games > 0 {
		r.VersionLag = lag / float64(r.Games)
	}
	r.Actors, r.ActorPositionsPerSec, r.ActorsHeldBack = more.Actors, more.ActorPositionsPerSec, more.ActorsHeldBack
	r.NetworkSwitchMs = max(r.NetworkSwitchMs, more.NetworkSwitchMs)
	r.IngestGamesPerSec, r.Backlog = more.IngestGamesPerSec, more.Backlog
	r.PublishToWindowMs, r.PublishToCheckedMs = more.PublishToWindowMs, more.PublishToCheckedMs
	r.PublishToStoredMs, r.PublishToFetchedMs = more.PublishToStoredMs, more.PublishToFetchedMs
}

// Fill copies the remote figures into the metrics.
func (r Result) Fill(m *metrics.Iteration) {
	m.Actors, m.RemoteGames, m.RemotePositions = r.Actors, r.Games, r.Positions
	m.RemoteStale, m.RemoteInvalid, m.RemoteDuplicate = r.Stale, r.Invalid, r.Duplicate
	speed := r.ActorPositionsPerSec
	m.ActorPositionsPerSec, m.ActorPositionsPerSecMin, m.ActorPositionsPerSecP50, m.ActorPositionsPerSecMax = speed.Total, speed.Min, speed.P50, speed.Max
	m.VersionLag = r.VersionLag
	m.NetworkSwitchMs = r.NetworkSwitchMs
	m.ActorsHeldBack, m.IngestGamesPerSec, m.IngestBacklog = r.ActorsHeldBack, r.IngestGamesPerSec, r.Backlog
	m.PublishToWindowP50Ms, m.PublishToWindowP99Ms, m.PublishToWindowMaxMs = r.PublishToWindowMs.P50, r.PublishToWindowMs.P99, r.PublishToWindowMs.Max
	m.PublishToStoredP99Ms, m.PublishToFetchedP99Ms, m.PublishToCheckedP99Ms = r.PublishToStoredMs.P99, r.PublishToFetchedMs.P99, r.PublishToCheckedMs.P99
	if r.Games > 0 {
		m.RemoteMeanGameLength = float64(r.Plies) / float64(r.Games)
		m.RemoteDecidedShare = float64(r.Decided) / float64(r.Games)
	}
}
