package distributed

import (
	"encoding/json"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/remotegames"
	"github.com/deathstacks/deathstacks/train/testctx"
)

// TestStreamLimitLosesNoGame runs two actors against a stream that holds
// one iteration's games: the server refuses the games beyond it, the
// actors keep them (their queues of 2 games fill, and hold their self-play
// back, which their heartbeats tell the learner) and send them again once
// the learner, going on from each checkpoint's cursor, has removed the
// games it took. Every game the server acknowledged is ingested once.
func TestStreamLimitLosesNoGame(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(t, dir)
	limit := cfg.SelfPlay.GamesPerIteration
	cfg.Distributed.StreamMaxGames = limit
	// Each actor's queue holds 2 games: a full stream holds the actors'
	// self-play back.
	cfg.Distributed.QueueGames = 2
	s := startServer(t, dir)
	l, _ := newLearner(t, s, cfg, dir)
	var published, ingested idSet
	var refusals atomic.Int64
	l.ingested = ingested.add
	net, err := model.New(cfg.Model, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Publish(0, net); err != nil {
		t.Fatal(err)
	}
	var stops []func()
	var waits []func() error
	for range 2 {
		stop, wait := startActorWith(t, ActorOptions{
			ConnectOptions: ConnectOptions{URL: s.URL, Token: s.Token},
			Workers:        1, ParallelGames: 2, published: published.add, refused: func(string) { refusals.Add(1) },
		})
		stops, waits = append(stops, stop), append(waits, wait)
	}
	ctx := testctx.Context(t)
	discard := func(train.Sample) error { return nil }
	var cursor json.RawMessage
	taken := 0
	for round := range 3 {
		was := refusals.Load()
		testctx.WaitUntil(t, "the server refusing a game", func() bool { return refusals.Load() > was })
		if round == 0 {
			testctx.WaitUntil(t, "an actor held back", func() bool { _, _, held := l.actors(); return held > 0 })
		}
		info, err := l.stream.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.State.Msgs > uint64(limit) {
			t.Errorf("round %d: the stream holds %d games, more than its %d", round, info.State.Msgs, limit)
		}
		// Asking for more than the stream can hold: the learner takes what
		// it holds and goes on, as a pure learner would.
		res, err := l.Collect(ctx, remotegames.Request{Cursor: cursor, Saved: cursor, MinGames: 2 * limit}, discard)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if res.Games < limit {
			t.Errorf("round %d: %d games taken from a full stream of %d", round, res.Games, limit)
		}
		cursor, taken = res.Cursor, taken+res.Games
	}
	for i, stop := range stops {
		stop()
		if err := waits[i](); err != nil {
			t.Fatalf("actor %d: %v", i, err)
		}
	}
	res, err := l.Collect(ctx, remotegames.Request{Cursor: cursor, Saved: cursor}, discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d publishes refused; %d games taken in 3 full rounds, %d after", refusals.Load(), taken, res.Games)
	sameGames(t, &published, &ingested)
}
