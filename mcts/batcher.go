package mcts

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/deathstacks/deathstacks/env"
)

// ErrBatcherClosed is returned by the Evaluate of a closed [Batcher].
var ErrBatcherClosed = errors.New("batcher closed")

// Batcher merges the Evaluate calls of many searches, each in its own
// goroutine, into larger calls of one evaluator, which a network serves much
// faster than many small ones. Its Evaluate is safe for concurrent use and
// blocks until the merged call returns. The inner evaluator is called from
// one goroutine at a time.
//
// A merged call takes the requests that wait when the inner evaluator is
// free, up to maxBatch positions (a single larger request goes alone); with
// a wait above 0 it also waits that long after the first request for
// others. While the inner evaluator works, new requests queue up, so under
// load the batches grow by themselves.
type Batcher struct {
	inner    Evaluator
	maxBatch int
	wait     time.Duration
	requests chan *batchRequest
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

// NewBatcher starts a batcher around inner; Close stops it.
func NewBatcher(inner Evaluator, maxBatch int, wait time.Duration) (*Batcher, error) {
	if inner == nil {
		return nil, errors.New("batcher: no evaluator")
	}
	if maxBatch < 1 {
		return nil, fmt.Errorf("batcher: max batch is %d: want 1 or more", maxBatch)
	}
	if wait < 0 {
		return nil, fmt.Errorf("batcher: wait is %v: want 0 or more", wait)
	}
	b := &Batcher{
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

// Evaluate implements [Evaluator].
func (b *Batcher) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	if len(values) == 0 {
		return nil
	}
	req := &batchRequest{obs: obs, legal: legal, priors: priors, values: values, err: make(chan error, 1)}
	select {
	case b.requests <- req:
		return <-req.err
	case <-b.done:
		return ErrBatcherClosed
	}
}

// Close stops the batcher once the requests it has taken are answered;
// later calls of Evaluate return ErrBatcherClosed.
func (b *Batcher) Close() {
	b.once.Do(func() { close(b.done) })
	<-b.stopped
}

// serve is the worker goroutine: it gathers requests and evaluates them.
func (b *Batcher) serve() {
	defer close(b.stopped)
	for {
		var first *batchRequest
		select {
		case first = <-b.requests:
		case <-b.done:
			return
		}
		reqs := []*batchRequest{first}
		n := len(first.values)
		var deadline <-chan time.Time
		if b.wait > 0 {
			deadline = time.After(b.wait)
		}
	gather:
		for n < b.maxBatch {
			if deadline == nil {
				select {
				case r := <-b.requests:
					reqs, n = append(reqs, r), n+len(r.values)
				default:
					break gather
				}
				continue
			}
			select {
			case r := <-b.requests:
				reqs, n = append(reqs, r), n+len(r.values)
			case <-deadline:
				break gather
			}
		}
		b.evaluate(reqs, n)
	}
}

// evaluate makes one call of the inner evaluator for reqs, n positions in
// all, and answers each request.
func (b *Batcher) evaluate(reqs []*batchRequest, n int) {
	b.obs, b.legal, b.priors = b.obs[:0], b.legal[:0], b.priors[:0]
	for _, r := range reqs {
		b.obs = append(b.obs, r.obs[:len(r.values)*env.ObservationSize]...)
		b.legal = append(b.legal, r.legal...)
		b.priors = append(b.priors, r.priors...) // the inner evaluator writes the callers' priors
	}
	b.values = slices.Grow(b.values[:0], n)[:n]
	err := b.inner.Evaluate(b.obs, b.legal, b.priors, b.values)
	at := 0
	for _, r := range reqs {
		at += copy(r.values, b.values[at:at+len(r.values)])
		r.err <- err
	}
}
