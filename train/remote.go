package train

import (
	"context"
	"encoding/json"
	"math"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/metrics"
)

// Sample is one training position: an observation, its legal actions with
// the search's move distribution over them, and the game's result for the
// side to move. It is the network's training sample.
type Sample = model.Sample

// RemoteSource brings the games other machines play into a run (see
// package train/distributed). [Run] asks it once per iteration, after the
// local self-play.
type RemoteSource interface {
	// Collect adds the samples of the games that arrived after req.Cursor
	// through add, waiting until at least req.MinGames games are added (or
	// ctx ends), and returns the cursor just past the last game it read.
	// The run keeps that cursor in its next checkpoint and hands it back
	// after a resume, so a game is taken once even across a crash.
	Collect(ctx context.Context, req RemoteRequest, add func(Sample) error) (RemoteResult, error)
}

// RemoteRequest is what the run asks of a [RemoteSource].
type RemoteRequest struct {
	// Cursor is the position in the source reached so far, as a Collect
	// returned it; nil at the start of a run. It is the cursor of the
	// run's last checkpoint, so the source may forget what lies before it.
	Cursor json.RawMessage
	// Version is the iteration of the network self-play uses now.
	Version int
	// MinGames is the number of games to wait for; 0 takes what is there.
	MinGames int
}

// RemoteResult is what one Collect brought.
type RemoteResult struct {
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
	// ActorPositionsPerSec is each actor's self-play speed, by actor id.
	ActorPositionsPerSec map[string]float64
	// VersionLag is the mean number of versions the added games' networks
	// were behind Version.
	VersionLag float64
	// NetworkSwitchMs is the time from the network of Version being
	// published to the last actor that switched to it playing with it,
	// in milliseconds; 0 when no actor switched.
	NetworkSwitchMs float64
}

// fill copies the remote figures into the metrics.
func (r RemoteResult) fill(m *metrics.Iteration) {
	m.Actors, m.RemoteGames, m.RemotePositions = r.Actors, r.Games, r.Positions
	m.RemoteStale, m.RemoteInvalid, m.RemoteDuplicate = r.Stale, r.Invalid, r.Duplicate
	m.ActorPositionsPerSec, m.VersionLag = r.ActorPositionsPerSec, r.VersionLag
	m.NetworkSwitchMs = r.NetworkSwitchMs
	if r.Games > 0 {
		m.RemoteMeanGameLength = float64(r.Plies) / float64(r.Games)
		m.RemoteDecidedShare = float64(r.Decided) / float64(r.Games)
	}
}

// SelfPlayGame is a finished self-play game as [SelfPlay] hands it out.
type SelfPlayGame struct {
	// Samples are the searched positions with their targets, in order.
	Samples []Sample
	// SamplePlies holds the number of moves played before each sample's
	// position: every ply after the opening, or a share of them with
	// playout cap randomization (selfplay.fast_simulations).
	SamplePlies []int
	// Moves are all the moves played, random opening plies included.
	Moves []env.Move
	// Resigned says the game ended by resignation: the last sample's
	// position is then the one after all the moves, where the side to move
	// gave up.
	Resigned bool
}

// SelfPlay plays self-play games with cfg's rules, search and self-play
// settings on eval, cfg.SelfPlay.ParallelGames at a time, and hands each
// finished one to done, until ctx ends (its error is then returned, as is
// the first error of a game or of done). Game i is seeded from seed and i.
func SelfPlay(ctx context.Context, cfg Config, eval mcts.Evaluator, seed uint64, done func(SelfPlayGame) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sp := &selfPlayer{eval: eval, opts: cfg.Env, search: cfg.Search, cfg: cfg.SelfPlay}
	_, err := sp.runSelfPlay(ctx, math.MaxInt, cfg.SelfPlay.ParallelGames, seed, func(g selfPlayGame) {
		if err := done(SelfPlayGame{Samples: g.Samples, SamplePlies: g.SamplePlies, Moves: g.Moves, Resigned: g.Resigned}); err != nil {
			cancel(err)
		}
	})
	if cause := context.Cause(ctx); cause != nil && cause != context.Canceled {
		return cause
	}
	return err
}

// NetworkHook is called with each network self-play should use from now
// on: the current one when the session starts, then each new one once its
// checkpoint is written.
type NetworkHook func(version int, net *model.Network) error

// YAML returns the configuration as YAML that [Parse] reads back to the
// same value: what a run gives the machines that play its games.
func (c Config) YAML() ([]byte, error) { return c.yamlText() }
