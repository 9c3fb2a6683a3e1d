package distributed

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/distributed/natsserver"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/remotegames"
	"github.com/deathstacks/deathstacks/train/testctx"
)

func TestLearnerAndTwoActors(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(t, dir)
	s := startServer(t, dir)
	l, nc := newLearner(t, s, cfg, dir)
	var published, ingested idSet
	l.ingested = ingested.add
	// The finished games an actor holds unacknowledged at a heartbeat
	// are what a SIGKILL at a random moment would lose of them.
	var mu sync.Mutex
	var queued []int
	beats := map[string]bool{}
	sub, err := nc.Subscribe(actorsSubject+".*", func(m *nats.Msg) {
		var b beat
		if json.Unmarshal(m.Data, &b) == nil {
			mu.Lock()
			queued = append(queued, b.Queued)
			beats[b.Actor] = true
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	for range 2 {
		startActor(t, s, &published)
	}
	var versions []int
	ctx := testctx.Context(t)
	sum, err := train.Run(ctx, cfg, train.RunOptions{
		Iterations: 2, Remote: l, NoSelfPlay: true,
		OnNetwork: func(v int, net *model.Network) error {
			versions = append(versions, v)
			return l.Publish(v, net)
		},
	})
	if err != nil || sum.Stopped {
		t.Fatalf("run: %+v, %v", sum, err)
	}
	if want := []int{0, 1, 2}; !slices.Equal(versions, want) {
		t.Errorf("networks published: %v, want %v", versions, want)
	}
	lines, err := metrics.Read(filepath.Join(dir, metrics.File))
	if err != nil || len(lines) != 2 {
		t.Fatalf("metrics: %d lines, %v", len(lines), err)
	}
	total := 0
	for _, m := range lines {
		if m.RemoteGames < cfg.SelfPlay.GamesPerIteration || m.SelfPlayGames != 0 {
			t.Errorf("iteration %d: %d remote and %d local games: want at least %d remote, no local", m.Iteration, m.RemoteGames, m.SelfPlayGames, cfg.SelfPlay.GamesPerIteration)
		}
		if m.RemoteMeanGameLength <= 0 || m.RemoteDecidedShare < 0 || m.RemoteDecidedShare > 1 {
			t.Errorf("iteration %d: remote games of %.1f plies on average, %.2f decided", m.Iteration, m.RemoteMeanGameLength, m.RemoteDecidedShare)
		}
		if m.RemoteStale+m.RemoteInvalid+m.RemoteDuplicate != 0 {
			t.Errorf("iteration %d: games dropped: %+v", m.Iteration, m)
		}
		total += m.RemoteGames
	}
	// Both actors are heard during the run; on a loaded machine one may
	// have played all of an iteration's few games before the other's first
	// heartbeat, so any one line may show only one.
	for _, m := range lines {
		// One or two actors, each with a speed (0 before its first game
		// finished): the total is the slowest one's, plus the fastest
		// one's when there are two.
		sum := m.ActorPositionsPerSecMax
		if m.Actors == 2 {
			sum += m.ActorPositionsPerSecMin
		}
		if m.Actors < 1 || m.Actors > 2 || m.ActorPositionsPerSecMin < 0 || m.ActorPositionsPerSecP50 != m.ActorPositionsPerSecMin ||
			math.Abs(m.ActorPositionsPerSec-sum) > 1e-9*sum {
			t.Errorf("iteration %d: %d actors, positions/s %v in all, min %v, median %v, max %v: want 1 or 2 with a speed each",
				m.Iteration, m.Actors, m.ActorPositionsPerSec, m.ActorPositionsPerSecMin, m.ActorPositionsPerSecP50, m.ActorPositionsPerSecMax)
		}
	}
	// One actor may have played all the run's games before the other's
	// first heartbeat (it joins once the run has published its first
	// network): both are heard, if not during the run, then after it.
	testctx.WaitUntil(t, "both actors' heartbeats", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(beats) == 2
	})
	mu.Lock()
	if len(queued) == 0 {
		t.Error("no heartbeat heard")
	} else {
		sum := 0
		for _, q := range queued {
			sum += q
		}
		t.Logf("finished games queued at a heartbeat: mean %.2f, max %d over %d heartbeats", float64(sum)/float64(len(queued)), slices.Max(queued), len(queued))
	}
	mu.Unlock()
	if ingested.len() != total {
		t.Errorf("%d games ingested, metrics say %d", ingested.len(), total)
	}
	published.mu.Lock()
	defer published.mu.Unlock()
	for id, n := range ingested.ids {
		if n != 1 || published.ids[id] != 1 {
			t.Errorf("game %s: ingested %d times, published %d times: want once each", id, n, published.ids[id])
		}
	}
}

func TestWrongTokenIsRefused(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	info, err := os.Stat(filepath.Join(dir, natsserver.Dir, "token"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v, %v: want mode 0600", info, err)
	}
	for _, tc := range []struct{ name, token string }{
		{"wrong", s.Token + "x"},
		{"missing", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := RunActor(testctx.Context(t), ActorOptions{ConnectOptions: ConnectOptions{URL: s.URL, Token: tc.token}})
			if !errors.Is(err, ErrRefused) {
				t.Errorf("actor: %v, want %v", err, ErrRefused)
			}
		})
	}
}

// crashingSource is a learner that fails (as a killed learner would)
// after taking the games of the iteration named crashAt, before its
// checkpoint. It keeps the ids of the games each Collect took until a
// checkpoint holds them, as committed: a later Collect is told of a
// checkpoint at or past them, or the run ends well, or it ends with the
// error after writing the checkpoint of iteration N, whose cursor the
// first Collect of network N starts from.
type crashingSource struct {
	*Learner
	crashAt      int
	pending      []string
	taken        []takenGames
	committed    idSet
	checkpointed uint64
}

// takenGames are the games one Collect took, up to a stream sequence.
type takenGames struct {
	upTo uint64
	ids  []string
}

// errKilled stands for the learner being killed.
var errKilled = errors.New("learner killed between ingest and checkpoint")

func (c *crashingSource) Collect(ctx context.Context, req remotegames.Request, add func(train.Sample) error) (remotegames.Result, error) {
	c.commit(cursorSeq(req.Saved))
	if req.First && req.Version > 0 {
		c.checkpointed = cursorSeq(req.Cursor)
	}
	c.pending = nil
	res, err := c.Learner.Collect(ctx, req, add)
	if err == nil && req.Version+1 == c.crashAt {
		return res, errKilled
	}
	c.taken = append(c.taken, takenGames{upTo: cursorSeq(res.Cursor), ids: c.pending})
	return res, err
}

// commit counts the games taken up to the stream sequence saved (the
// cursor of a checkpoint written) as committed.
func (c *crashingSource) commit(saved uint64) {
	kept := c.taken[:0]
	for _, t := range c.taken {
		if t.upTo > saved {
			kept = append(kept, t)
			continue
		}
		for _, id := range t.ids {
			c.committed.add(id)
		}
	}
	c.taken = kept
}

// cursorSeq returns the stream sequence of a learner's cursor; 0 for none.
func cursorSeq(data json.RawMessage) uint64 {
	var c cursor
	if len(data) > 0 {
		_ = json.Unmarshal(data, &c)
	}
	return c.Seq
}

func TestCrashesLoseAndRepeatNoGame(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(t, dir)
	s := startServer(t, dir)
	var published, committed idSet
	// Actor A is stopped in the middle of its games once it has sent one.
	stopA, waitA := startActor(t, s, &published)
	stopB, waitB := startActor(t, s, &published)
	go func() {
		for published.len() == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		stopA()
	}()

	// session runs the learner to the given iteration, crashing in
	// iteration crashAt (0: never); local plays local games too, so that
	// it waits for no remote game.
	session := func(crashAt, iterations int, resume, local bool) error {
		l, _ := newLearner(t, s, cfg, dir)
		src := &crashingSource{Learner: l, crashAt: crashAt}
		l.ingested = func(id string) { src.pending = append(src.pending, id) }
		_, err := train.Run(context.Background(), cfg, train.RunOptions{
			Resume: resume, Iterations: iterations, Remote: src, NoSelfPlay: !local, OnNetwork: l.Publish,
		})
		if err == nil {
			src.commit(math.MaxUint64) // the last checkpoint holds every game taken
		} else {
			src.commit(src.checkpointed)
		}
		for id, n := range src.committed.ids {
			for range n {
				committed.add(id)
			}
		}
		return err
	}
	if err := session(2, 3, false, false); !errors.Is(err, errKilled) {
		t.Fatalf("first session: %v, want the crash", err)
	}
	if err := waitA(); err != nil {
		t.Fatalf("actor A: %v", err)
	}
	if err := session(0, 3, true, false); err != nil {
		t.Fatalf("resumed session: %v", err)
	}
	stopB()
	if err := waitB(); err != nil {
		t.Fatalf("actor B: %v", err)
	}
	if err := session(0, 4, true, true); err != nil {
		t.Fatalf("last session: %v", err)
	}
	sameGames(t, &published, &committed)
}

// sameGames checks that every game published was ingested once, and no
// other.
func sameGames(t *testing.T, published, ingested *idSet) {
	t.Helper()
	if published.len() == 0 {
		t.Fatal("no game published")
	}
	eachIngestedOnce(t, published, ingested)
	published.mu.Lock()
	defer published.mu.Unlock()
	ingested.mu.Lock()
	defer ingested.mu.Unlock()
	for id := range ingested.ids {
		if published.ids[id] == 0 {
			t.Errorf("game %s: ingested, never published", id)
		}
	}
	t.Logf("%d games published, each ingested once", len(published.ids))
}

// eachIngestedOnce checks that every game published (acknowledged) was
// ingested exactly once.
func eachIngestedOnce(t *testing.T, published, ingested *idSet) {
	t.Helper()
	published.mu.Lock()
	defer published.mu.Unlock()
	ingested.mu.Lock()
	defer ingested.mu.Unlock()
	for id := range published.ids {
		if ingested.ids[id] != 1 {
			t.Errorf("game %s: acknowledged, ingested %d times", id, ingested.ids[id])
		}
	}
}
