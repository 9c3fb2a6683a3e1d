package mcts

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/internal/testgames"
)

// gatedEvaluator records the batch sizes it sees; its first call waits
// for hold to return, so that requests pile up behind it.
type gatedEvaluator struct {
	countingEvaluator
	hold func()
	once sync.Once
	fail bool
}

func (s *gatedEvaluator) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	if s.hold != nil {
		s.once.Do(s.hold)
	}
	if err := s.countingEvaluator.Evaluate(obs, legal, priors, values); err != nil {
		return err
	}
	if s.fail {
		return errTest
	}
	return nil
}

// request builds an evaluation request for n positions of a random game.
func request(t *testing.T, seed uint64, n int) (obs []float32, legal [][]env.Action, priors [][]float32, values []float32) {
	t.Helper()
	values = make([]float32, n)
	for i := range n {
		g := testgames.RandomGame(t, seed*100+uint64(i), 5+i)
		p := g.Position()
		o := make([]float32, env.ObservationSize)
		env.EncodeObservation(o, &p, g.Rules(), g.Repetitions())
		obs = append(obs, o...)
		acts := p.LegalActions(nil, true)
		legal = append(legal, acts)
		priors = append(priors, make([]float32, len(acts)))
	}
	return obs, legal, priors, values
}

func TestBatcherMergesAndAnswersEveryCaller(t *testing.T) {
	for _, wait := range []time.Duration{0, 2 * time.Millisecond} {
		t.Run(wait.String(), func(t *testing.T) {
			const callers, rounds = 8, 5
			slow := &gatedEvaluator{countingEvaluator: countingEvaluator{inner: hashEvaluator{}}}
			b, err := newBatcher(slow, 16, wait)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			// The first call waits until every caller has a request in it
			// or on its way, so that one of the first two calls merges.
			slow.hold = func() {
				for b.pending.Load()+b.serving.Load() < callers {
					runtime.Gosched()
				}
			}
			var wg sync.WaitGroup
			for c := range callers {
				wg.Go(func() {
					for r := range rounds {
						n := 1 + (c+r)%3
						obs, legal, priors, values := request(t, uint64(c*rounds+r), n)
						if err := b.Evaluate(obs, legal, priors, values); err != nil {
							t.Error(err)
							return
						}
						// The answer must be the one the inner evaluator
						// gives these positions alone.
						_, _, wantPriors, wantValues := request(t, uint64(c*rounds+r), n)
						if err := (hashEvaluator{}).Evaluate(obs, legal, wantPriors, wantValues); err != nil {
							t.Error(err)
							return
						}
						for i := range values {
							if values[i] != wantValues[i] || priors[i][0] != wantPriors[i][0] {
								t.Errorf("caller %d round %d: position %d got another position's answer", c, r, i)
							}
						}
					}
				})
			}
			wg.Wait()
			if slow.calls >= callers*rounds || slow.maxed > 16+2 {
				t.Errorf("%d inner calls for %d requests, largest %d: want merged batches of at most about 16", slow.calls, callers*rounds, slow.maxed)
			}
		})
	}
}

func TestBatcherErrorsAndClose(t *testing.T) {
	slow := &gatedEvaluator{countingEvaluator: countingEvaluator{inner: UniformEvaluator{}}, fail: true}
	b, err := newBatcher(slow, 8, 0)
	if err != nil {
		t.Fatal(err)
	}
	obs, legal, priors, values := request(t, 1, 2)
	if err := b.Evaluate(obs, legal, priors, values); !errors.Is(err, errTest) {
		t.Errorf("error %v, want the inner evaluator's", err)
	}
	b.Close()
	b.Close() // twice is fine
	if err := b.Evaluate(obs, legal, priors, values); !errors.Is(err, errBatcherClosed) {
		t.Errorf("after Close: error %v", err)
	}
	for _, bad := range []struct {
		eval  Evaluator
		max   int
		wait  time.Duration
		label string
	}{{nil, 8, 0, "nil"}, {UniformEvaluator{}, 0, 0, "max 0"}, {UniformEvaluator{}, 8, -1, "negative wait"}} {
		if _, err := newBatcher(bad.eval, bad.max, bad.wait); err == nil {
			t.Errorf("%s: no error", bad.label)
		}
	}
}

// errBatcherClosed is returned by the Evaluate of a closed batcher.
var errBatcherClosed = errors.New("batcher closed")

// batcher is a shared test evaluator in the way model.Server is one, but
// around any evaluator: it merges the Evaluate calls of many searches, each
// in its own goroutine, into larger calls of one evaluator. Its Evaluate is safe for concurrent use and
// blocks until the merged call returns. The inner evaluator is called from
// one goroutine at a time.
//
// A merged call takes the requests that callers have begun to send when
// the inner evaluator is free, up to maxBatch positions (a single larger
// request goes alone); with a wait above 0 it also waits that long after
// the first request for others. While the inner evaluator works, new requests queue up, so under
// load the batches grow by themselves.
type batcher struct {
	inner    Evaluator
	maxBatch int
	wait     time.Duration
	requests chan *batchRequest
	pending  atomic.Int64 // requests that callers have begun to send
	serving  atomic.Int64 // requests in the call of the inner evaluator
	done     chan struct{}
	stopped  chan struct{}
	once     sync.Once

	// Buffers of the merged call, used by the worker goroutine only.
	obs    []float32
	legal  [][]env.Action
	priors [][]float32
	values []float32
}

type batchRequest struct {
	obs    []float32
	legal  [][]env.Action
	priors [][]float32
	values []float32
	err    chan error
}

// newBatcher starts a batcher around inner; Close stops it.
func newBatcher(inner Evaluator, maxBatch int, wait time.Duration) (*batcher, error) {
	if inner == nil {
		return nil, errors.New("batcher: no evaluator")
	}
	if maxBatch < 1 {
		return nil, fmt.Errorf("batcher: max batch is %d: want 1 or more", maxBatch)
	}
	if wait < 0 {
		return nil, fmt.Errorf("batcher: wait is %v: want 0 or more", wait)
	}
	b := &batcher{
		inner:    inner,
		maxBatch: maxBatch,
		wait:     wait,
		requests: make(chan *batchRequest),
		done:     make(chan struct{}),
		stopped:  make(chan struct{}),
	}
	go b.serve()
	return b, nil
}

// Evaluate implements Evaluator.
func (b *batcher) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	if len(values) == 0 {
		return nil
	}
	req := &batchRequest{obs: obs, legal: legal, priors: priors, values: values, err: make(chan error, 1)}
	b.pending.Add(1)
	select {
	case b.requests <- req:
		return <-req.err
	case <-b.done:
		b.pending.Add(-1)
		return errBatcherClosed
	}
}

// Close stops the batcher once the requests it has taken are answered;
// later calls of Evaluate return errBatcherClosed.
func (b *batcher) Close() {
	b.once.Do(func() { close(b.done) })
	<-b.stopped
}

// serve is the worker goroutine: it gathers requests and evaluates them.
func (b *batcher) serve() {
	defer close(b.stopped)
	for {
		var first *batchRequest
		select {
		case first = <-b.requests:
			b.pending.Add(-1)
		case <-b.done:
			return
		}
		reqs := []*batchRequest{first}
		n := len(first.values)
		var deadline <-chan time.Time
		if b.wait > 0 {
			deadline = time.After(b.wait)
		}
		for n < b.maxBatch && (deadline != nil || b.pending.Load() > 0) {
			select {
			case r := <-b.requests:
				b.pending.Add(-1)
				reqs, n = append(reqs, r), n+len(r.values)
				continue
			case <-deadline:
			case <-b.done:
			}
			break
		}
		b.evaluate(reqs, n)
	}
}

// evaluate makes one call of the inner evaluator for reqs, n positions in
// all, and answers each request.
func (b *batcher) evaluate(reqs []*batchRequest, n int) {
	b.obs, b.legal, b.priors = b.obs[:0], b.legal[:0], b.priors[:0]
	for _, r := range reqs {
		b.obs = append(b.obs, r.obs[:len(r.values)*env.ObservationSize]...)
		b.legal = append(b.legal, r.legal...)
		b.priors = append(b.priors, r.priors...) // the inner evaluator writes the callers' priors
	}
	b.values = slices.Grow(b.values[:0], n)[:n]
	b.serving.Store(int64(len(reqs)))
	err := b.inner.Evaluate(b.obs, b.legal, b.priors, b.values)
	at := 0
	for _, r := range reqs {
		at += copy(r.values, b.values[at:at+len(r.values)])
		r.err <- err
	}
}
