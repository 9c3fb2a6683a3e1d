package distributed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/remotegames"
)

// apiWait bounds one request to the server: a request lost with a server
// of a cluster gets no answer, and is made again.
const apiWait = 5 * time.Second

// retry calls f, with apiWait to answer, until it succeeds or ctx ends;
// it returns f's last error then.
func retry(ctx context.Context, f func(context.Context) error) error {
	for {
		try, cancel := context.WithTimeout(ctx, apiWait)
		err := f(try)
		cancel()
		if err == nil || ctx.Err() != nil {
			return err
		}
		sleep(ctx, 250*time.Millisecond)
	}
}

// collectSpan is how long a Collect goes on taking the games that come
// once it has those it owes: each Collect costs (the cursor read and
// written, the stream asked about, the figures), so that a run feeding
// its buffer makes about ten a second, not one per part of a batch.
const collectSpan = 100 * time.Millisecond

// fetchBatch is the most games the learner asks the server for at once.
const fetchBatch = 256

// A batch goes on to be checked in parts, as its games come: handoverGames
// games, or those that came within handoverWait of the first, so that a
// game waits for the rest of its part only (about 25 ms at 2,500 games a
// second), not for its batch (100 ms then, up to the fetch's wait of a
// second when few games come).
const (
	handoverGames = 64
	handoverWait  = 25 * time.Millisecond
)

// reorderHorizon bounds how far behind its actor's newest game taken a
// game may still arrive: an actor has at most publishWindow games in
// flight, and one retried may land after later ones. A game further behind
// never comes (its actor died before the server acknowledged it) and is
// no longer waited for.
const reorderHorizon = 4 * publishWindow

// take marks the game counter of actor, played by the network of the
// given version, as taken, or reports that it was taken already.
func (c *cursor) take(actor string, counter uint64, version int) (duplicate bool) {
	done := c.Seen[actor]
	above := c.Above[actor]
	if counter <= done || slices.Contains(above, counter) {
		return true
	}
	if c.Versions == nil {
		c.Versions = map[string]int{}
	}
	if v, ok := c.Versions[actor]; !ok || version > v {
		c.Versions[actor] = version
	}
	above = append(above, counter)
	slices.Sort(above)
	if newest := above[len(above)-1]; newest > done+reorderHorizon {
		done = newest - reorderHorizon // the games before it never come
	}
	for len(above) > 0 && above[0] <= done+1 {
		done, above = max(done, above[0]), above[1:]
	}
	c.Seen[actor] = done
	if len(above) == 0 {
		delete(c.Above, actor)
	} else {
		c.Above[actor] = slices.Clone(above)
	}
	return false
}

// prune forgets the actors none of whose games could be taken any more:
// every game of theirs up to the newest taken was played by a network
// more than maxStaleness versions older than version, the run's now
// (and the run's version only grows), so such a game is stale; a newer
// game of theirs, never taken, starts their entries again. An actor
// without a version (a cursor written before versions were kept) gets
// version, the newest its games can have.
func (c *cursor) prune(version, maxStaleness int) {
	if c.Versions == nil {
		c.Versions = map[string]int{}
	}
	for actor := range c.Seen {
		v, ok := c.Versions[actor]
		switch {
		case !ok:
			c.Versions[actor] = version
		case version-v > maxStaleness:
			delete(c.Seen, actor)
			delete(c.Above, actor)
			delete(c.Versions, actor)
		}
	}
}

// checked is one game read from the stream, checked and replayed.
type checked struct {
	seq     uint64
	rec     *record
	samples []model.Sample
	decided bool
	err     error
	// mem holds the samples' observations and legal actions: the
	// learner's to reuse once they are added.
	mem *train.SampleMemory
	// queued is when the actor queued the game (its clock), stored when
	// the server stored it (the server's), fetched when the learner had
	// read its batch, checkedAt when the learner had replayed it.
	queued, stored, fetched, checkedAt time.Time
}

// ingester reads the games stream ahead of the run from a sequence on:
// it fetches the next batch of games while it checks and replays the last
// one on every core, and keeps the results, in stream order, for Collect,
// also while the run trains. It holds at most ahead games (and one batch);
// beyond them, the games wait in the stream.
type ingester struct {
	l     *Learner
	ahead int
	stop  context.CancelFunc
	done  chan struct{}

	mu      sync.Mutex
	ready   []checked
	taken   uint64 // the sequence up to which Collect has taken the games
	changed chan struct{}
}

// ingestFrom returns the learner's ingester reading the stream after seq,
// starting one (and stopping one reading elsewhere) as needed.
func (l *Learner) ingestFrom(seq uint64) *ingester {
	if g := l.ing; g != nil {
		g.mu.Lock()
		same := g.taken == seq
		g.mu.Unlock()
		if same {
			return g
		}
		g.close()
	}
	ctx, stop := context.WithCancel(context.Background())
	g := &ingester{l: l, ahead: l.cfg.Distributed.IngestAheadGames, stop: stop, done: make(chan struct{}), taken: seq, changed: make(chan struct{})}
	go g.run(ctx, seq+1)
	l.ing = g
	return g
}

// close stops the ingester and waits for it.
func (g *ingester) close() {
	g.stop()
	<-g.done
}

func (g *ingester) run(ctx context.Context, from uint64) {
	defer close(g.done)
	batches := make(chan batch, 1)
	go g.fetch(ctx, from, batches)
	for b := range batches {
		if !g.put(ctx, g.check(b)) {
			break
		}
	}
	for range batches { // let fetch end
	}
}

// batch is games read from the stream together, and when the read ended.
type batch struct {
	msgs    []jetstream.Msg
	fetched time.Time
}

// fetch reads the stream from the sequence from on, in batches, until ctx
// ends; a consumer lost (the server away, a node of the cluster gone) is
// made again after the last game read.
func (g *ingester) fetch(ctx context.Context, from uint64, out chan<- batch) {
	defer close(out)
	f := fetcher{stream: g.l.stream, from: from, out: out}
	for ctx.Err() == nil {
		if f.cons == nil && !f.connect(ctx) {
			sleep(ctx, 250*time.Millisecond)
			continue
		}
		b, err := f.cons.Fetch(fetchBatch, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			f.cons = nil
			sleep(ctx, 250*time.Millisecond)
			continue
		}
		ok, keep := f.read(ctx, b)
		if !ok {
			return
		}
		if !keep {
			f.cons = nil
		}
	}
}

// fetcher is the state of one fetch: where it reads, and through which
// consumer.
type fetcher struct {
	stream jetstream.Stream
	out    chan<- batch
	// from is the sequence of the next game to read.
	from uint64
	// cons is the consumer read from, nil when it is to be made again.
	cons jetstream.Consumer
	// delivered counts the consumer's deliveries: one missing (sent to a
	// fetch request that had expired) would be a game skipped, so the
	// consumer is made again after the last game read.
	delivered uint64
}

// connect makes a consumer reading from f.from; false if the server did
// not make it.
func (f *fetcher) connect(ctx context.Context) bool {
	// An ephemeral consumer of our own, not an ordered one: that one
	// remakes itself after a server is gone, with requests that may wait
	// forever.
	try, cancel := context.WithTimeout(ctx, apiWait)
	defer cancel()
	c, err := f.stream.CreateConsumer(try, jetstream.ConsumerConfig{
		DeliverPolicy: jetstream.DeliverByStartSequencePolicy, OptStartSeq: f.from,
		AckPolicy: jetstream.AckNonePolicy, MemoryStorage: true, Replicas: 1,
		InactiveThreshold: time.Minute,
	})
	if err != nil {
		return false
	}
	f.cons, f.delivered = c, 0
	return true
}

// read hands the games of one fetch request on, in parts as they come
// (see handoverGames); ok is false if ctx ended first, keep false if the
// consumer is to be made again: a delivery missing, the batch stuck or
// failed.
func (f *fetcher) read(ctx context.Context, b jetstream.MessageBatch) (ok, keep bool) {
	// A batch cut off by a server gone may never end: after the longest
	// wait the server was asked for, and a margin, without a game, the
	// consumer is made again.
	stuck := time.NewTimer(apiWait)
	defer stuck.Stop()
	part := time.NewTimer(handoverWait)
	part.Stop()
	defer part.Stop()
	var msgs []jetstream.Msg
	var partDue <-chan time.Time
	handOn := func() bool {
		if len(msgs) == 0 {
			return true
		}
		select {
		case f.out <- batch{msgs: msgs, fetched: time.Now()}:
		case <-ctx.Done():
			return false
		}
		msgs, partDue = nil, nil
		stuck.Reset(apiWait)
		return true
	}
	for {
		select {
		case m, more := <-b.Messages():
			if !more {
				err := b.Error()
				return handOn(), err == nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, jetstream.ErrNoMessages)
			}
			if !f.next(m) {
				return handOn(), false
			}
			msgs = append(msgs, m)
			stuck.Reset(apiWait)
			if len(msgs) == 1 {
				part.Reset(handoverWait)
				partDue = part.C
			}
			if len(msgs) == handoverGames && !handOn() {
				return false, false
			}
		case <-partDue:
			if !handOn() {
				return false, false
			}
		case <-stuck.C:
			return handOn(), false
		case <-ctx.Done():
			return false, false
		}
	}
}

// next moves the read position past m; false if m is not the consumer's
// next delivery.
func (f *fetcher) next(m jetstream.Msg) bool {
	md, err := m.Metadata()
	if err != nil || md.Sequence.Consumer != f.delivered+1 {
		return false
	}
	f.delivered++
	f.from = md.Sequence.Stream + 1
	return true
}

// check checks and replays a batch of games on every core.
func (g *ingester) check(b batch) []checked {
	msgs := b.msgs
	out := make([]checked, len(msgs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(msgs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < len(msgs); i = int(next.Add(1)) - 1 {
				out[i] = g.l.check(msgs[i])
				out[i].fetched = b.fetched
			}
		}()
	}
	wg.Wait()
	return out
}

// check reads, checks and replays one game: all that does not depend on
// the games before it.
func (l *Learner) check(m jetstream.Msg) checked {
	md, _ := m.Metadata() // fetch kept only messages with metadata
	c := checked{seq: md.Sequence.Stream, queued: md.Timestamp, stored: md.Timestamp}
	if ns, err := strconv.ParseInt(m.Headers().Get(queuedHeader), 10, 64); err == nil {
		c.queued = time.Unix(0, ns)
	}
	r, err := decodeRecord(m.Data())
	switch {
	case err != nil:
		c.err = err
	case r.RunID != l.runID:
		c.err = fmt.Errorf("game %s of run %q, not this run (%q)", r.id(), r.RunID, l.runID)
	default:
		c.rec = r
		var ok bool
		if c.mem, ok = l.memory.Get().(*train.SampleMemory); !ok {
			c.mem = new(train.SampleMemory)
		}
		if c.samples, c.decided, err = r.samples(l.cfg, c.mem); err != nil {
			c.err = fmt.Errorf("game %s: %w", r.id(), err)
		}
	}
	c.checkedAt = time.Now()
	return c
}

// put adds games to those ready, waiting while ahead games are; false if
// ctx ended first.
func (g *ingester) put(ctx context.Context, games []checked) bool {
	defer g.mu.Unlock()
	if !await(ctx, &g.mu, &g.changed, func() bool { return len(g.ready) < g.ahead }, nil) {
		return false
	}
	g.ready = append(g.ready, games...)
	notify(&g.changed)
	return true
}

// next takes the games ready, waiting up to wait for one; none once ctx
// has ended.
func (g *ingester) next(ctx context.Context, wait time.Duration) []checked {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	defer g.mu.Unlock()
	if !await(ctx, &g.mu, &g.changed, func() bool { return len(g.ready) > 0 }, timer.C) || ctx.Err() != nil {
		return nil
	}
	games := g.ready
	g.ready = nil
	g.taken = games[len(games)-1].seq
	notify(&g.changed)
	return games
}

// readCursor reads a cursor a Collect returned; nil is the stream's start.
func readCursor(raw json.RawMessage) (cursor, error) {
	cur := cursor{Seen: map[string]uint64{}, Above: map[string][]uint64{}}
	if len(raw) == 0 {
		return cur, nil
	}
	if err := json.Unmarshal(raw, &cur); err != nil {
		return cursor{}, fmt.Errorf("stream position in the checkpoint: %w", err)
	}
	if cur.Seen == nil {
		cur.Seen = map[string]uint64{}
	}
	if cur.Above == nil {
		cur.Above = map[string][]uint64{}
	}
	return cur, nil
}

// ReadAhead implements [remotegames.ReadAheadSource]: the learner starts
// reading, checking and replaying the games after the cursor, up to
// distributed.ingest_ahead_games of them, while the run makes or loads its
// network and replay buffer; the first Collect takes them.
func (l *Learner) ReadAhead(raw json.RawMessage) error {
	cur, err := readCursor(raw)
	if err != nil {
		return err
	}
	l.ingestFrom(cur.Seq)
	return nil
}

// Collect implements [remotegames.Source]: it takes the games read after
// the cursor, at least up to the last game stored when it was called, and
// on until req.MinGames games are added, and those that come until
// collectSpan after it was called. The ingester reads on meanwhile,
// while the run trains.
func (l *Learner) Collect(ctx context.Context, req remotegames.Request, add func(train.Sample) error) (res remotegames.Result, err error) {
	start := time.Now()
	cur, err := readCursor(req.Cursor)
	if err != nil {
		return remotegames.Result{}, err
	}
	cur.prune(req.Version, l.cfg.Distributed.MaxStaleness)
	var saved uint64 // no checkpoint yet: nothing taken for good
	if len(req.Saved) > 0 {
		var c cursor
		if err := json.Unmarshal(req.Saved, &c); err != nil {
			return remotegames.Result{}, fmt.Errorf("stream position of the last checkpoint: %w", err)
		}
		saved = c.Seq
	}
	if req.First || l.iter.start.IsZero() {
		l.iter = iteration{start: start} // the iteration's figures start here
	}
	h := handover{l: l, version: req.Version, cur: &cur, res: &res, add: add}
	defer h.report()
	if err := l.purge(ctx, saved); err != nil {
		return res, err
	}
	var info *jetstream.StreamInfo
	err = retry(ctx, func(ctx context.Context) (err error) {
		info, err = l.stream.Info(ctx)
		return err
	})
	if err != nil {
		return res, fmt.Errorf("games stream: %w", err)
	}
	last := info.State.LastSeq
	if cur.Seq >= last && req.MinGames == 0 {
		return res, nil
	}
	return res, h.takeFrom(ctx, l.ingestFrom(cur.Seq), last, req.MinGames, start.Add(collectSpan))
}

// purge removes the games up to saved, the last checkpoint's cursor, from
// the stream: they are taken for good, and their room goes to new ones.
func (l *Learner) purge(ctx context.Context, saved uint64) error {
	if saved <= l.purged {
		return nil
	}
	err := retry(ctx, func(ctx context.Context) error {
		return l.stream.Purge(ctx, jetstream.WithPurgeSequence(saved+1))
	})
	if err != nil {
		return fmt.Errorf("games stream: remove the games taken: %w", err)
	}
	l.purged = saved
	return nil
}

// takeFrom takes the games g has ready until those owed are taken, the
// games up to the stream's sequence last and minGames of them, and then
// those that come until span; it stops early when ctx ends or when the
// stream is full.
func (h *handover) takeFrom(ctx context.Context, g *ingester, last uint64, minGames int, span time.Time) error {
	for {
		owed := h.cur.Seq < last || h.res.Games < minGames
		wait := time.Second
		if !owed {
			// Games keep coming: take them as they come until the span is
			// over.
			if wait = time.Until(span); wait <= 0 {
				return nil
			}
		}
		games := g.next(ctx, wait)
		// The games taken from the ingester are added even when ctx has
		// just ended: the ingester has gone past them (else it would start
		// again from the cursor, reading and checking them again).
		for _, c := range games {
			if err := h.take(c); err != nil {
				return err
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if len(games) == 0 && !owed {
			return nil
		}
		// Nothing yet, or the server is away: the ingester goes on. But a
		// stream full of games read, dropped ones among them, takes no
		// more until the checkpoint frees it: train on what came.
		if len(games) == 0 && h.cur.Seq >= last && h.l.full(ctx, h.cur.Seq) {
			fmt.Fprintf(h.l.log, "games stream full (%d games kept until the checkpoint): going on with %d games of %d\n",
				h.l.cfg.Distributed.StreamMaxGames, h.res.Games, minGames)
			return nil
		}
	}
}

// full reports that the stream holds as many games as it may, all of
// them read up to seq.
func (l *Learner) full(ctx context.Context, seq uint64) bool {
	ctx, cancel := context.WithTimeout(ctx, apiWait)
	defer cancel()
	info, err := l.stream.Info(ctx)
	return err == nil && info.State.Msgs >= uint64(l.cfg.Distributed.StreamMaxGames) && info.State.LastSeq <= seq
}

// handover adds the games one Collect takes to the run, in stream order.
type handover struct {
	l       *Learner
	version int
	cur     *cursor
	res     *remotegames.Result
	add     func(train.Sample) error
	lag     int
}

// iteration is what the Collects of one iteration took: its games, and
// for each, the delays from its actor queueing it to its positions
// entering the window, and to it being checked and replayed.
type iteration struct {
	start                                    time.Time
	games                                    int
	toWindow, toChecked, toStored, toFetched delays
}

// take adds one checked game, or counts it dropped: invalid, taken
// already, or played by a network too old.
func (h *handover) take(c checked) error {
	if c.mem != nil {
		// The buffer has copied the samples: the next games' go there.
		defer h.l.memory.Put(c.mem)
	}
	if c.seq <= h.cur.Seq {
		return nil // read again after the ingester restarted
	}
	h.cur.Seq = c.seq
	err := c.err
	r := c.rec
	switch {
	case err != nil:
	case r.Version > h.version:
		err = fmt.Errorf("game %s played by network %d, newer than the run's %d", r.id(), r.Version, h.version)
	case h.cur.take(r.Actor, r.Counter, r.Version):
		h.res.Duplicate++
		return nil
	case h.version-r.Version > h.l.cfg.Distributed.MaxStaleness:
		h.res.Stale++
		return nil
	}
	if err != nil {
		h.res.Invalid++
		fmt.Fprintf(h.l.log, "dropped game at stream sequence %d: %v\n", c.seq, err)
		return nil
	}
	for _, s := range c.samples {
		if err := h.add(s); err != nil {
			return fmt.Errorf("game %s: %w", r.id(), err)
		}
	}
	now := time.Now()
	it := &h.l.iter
	it.games++
	it.toWindow.add(now.Sub(c.queued))
	it.toChecked.add(c.checkedAt.Sub(c.queued))
	it.toStored.add(c.stored.Sub(c.queued))
	it.toFetched.add(c.fetched.Sub(c.queued))
	if h.l.ingested != nil {
		h.l.ingested(r.id())
	}
	h.res.Games++
	h.res.Positions += len(c.samples)
	h.res.Plies += len(r.Game.Moves)
	if c.decided {
		h.res.Decided++
	}
	h.lag += h.version - r.Version
	return nil
}

// report fills in the result's cursor, actors and figures, and says when
// actors are held back.
func (h *handover) report() {
	l, res := h.l, h.res
	res.Cursor, _ = json.Marshal(*h.cur)
	res.Actors, res.ActorPositionsPerSec, res.ActorsHeldBack = l.actors()
	if d := l.switchDelays(h.version); len(d) > 0 {
		res.NetworkSwitchMs = float64(slices.Max(d)) / float64(time.Millisecond)
	}
	h.figures()
	if res.ActorsHeldBack > 0 {
		fmt.Fprintf(l.log, "%d of %d actors held back: the learner is behind (%d games wait in the stream)\n", res.ActorsHeldBack, res.Actors, res.Backlog)
	}
}

// figures fills in the result's rates and delays: the games taken per
// second since the iteration's first Collect began, the games left in the
// stream, and the iteration's delays' percentiles.
func (h *handover) figures() {
	l, res := h.l, h.res
	if res.Games > 0 {
		res.VersionLag = float64(h.lag) / float64(res.Games)
	}
	if sec := time.Since(l.iter.start).Seconds(); sec > 0 {
		res.IngestGamesPerSec = float64(l.iter.games) / sec
	}
	ctx, cancel := context.WithTimeout(context.Background(), apiWait)
	defer cancel()
	if info, err := l.stream.Info(ctx); err == nil && info.State.LastSeq > h.cur.Seq {
		res.Backlog = int(info.State.LastSeq - h.cur.Seq)
	}
	res.PublishToWindowMs = l.iter.toWindow.percentiles()
	res.PublishToCheckedMs = l.iter.toChecked.percentiles()
	res.PublishToStoredMs = l.iter.toStored.percentiles()
	res.PublishToFetchedMs = l.iter.toFetched.percentiles()
}

// delays keeps the delays of an iteration's games for their percentiles,
// which every Collect reports: those added since the last report are
// sorted and merged into the rest, kept in order, rather than all sorted
// again (an iteration holds tens of thousands, a Collect adds a few dozen).
type delays struct {
	sorted, fresh []time.Duration
}

func (d *delays) add(x time.Duration) { d.fresh = append(d.fresh, x) }

// percentiles returns the 50th and 99th percentile and the maximum of the
// delays, in milliseconds; zeros for none.
func (d *delays) percentiles() remotegames.Percentiles {
	if len(d.fresh) > 0 {
		slices.Sort(d.fresh)
		// Merge from the back, in place: only the delays above the
		// smallest fresh one move.
		n, m := len(d.sorted), len(d.fresh)
		s := slices.Grow(d.sorted, m)[:n+m]
		for i, j, k := n-1, m-1, n+m-1; j >= 0; k-- {
			if i >= 0 && s[i] > d.fresh[j] {
				s[k], i = s[i], i-1
			} else {
				s[k], j = d.fresh[j], j-1
			}
		}
		d.sorted, d.fresh = s, d.fresh[:0]
	}
	if len(d.sorted) == 0 {
		return remotegames.Percentiles{}
	}
	ms := func(q float64) float64 {
		return float64(d.sorted[int(q*float64(len(d.sorted)-1))]) / float64(time.Millisecond)
	}
	return remotegames.Percentiles{P50: ms(0.5), P99: ms(0.99), Max: ms(1)}
}
