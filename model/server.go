package model

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deathstacks/deathstacks/env"
)

// ErrClosed is returned by [Server.Evaluate] after [Server.Close].
var ErrClosed = errors.New("model server closed")

// Server evaluates positions for many concurrent searches by batching their
// requests. It implements mcts.Evaluator and is safe for concurrent use.
//
// Each worker goroutine owns its compiled graphs. It yields to the callers
// it has just answered, takes the first waiting request, then keeps taking
// requests while they are queued, up to MaxBatch positions; when the
// queue runs empty it waits FlushDelay for more, then runs the batch (the
// fused graph computes only its rows; the stock graph's is zero-padded to
// the next compiled size). A request larger than the room left is split
// across batches.
//
// The request of a lone caller (no other call in flight), such as a
// single search's, is split among the workers instead (at least
// splitRows positions a part), each part run alone: one search then uses
// every core. The rows the fused graph computes do not depend on the
// others in its batch, so the split changes no result (the stock graph,
// compiled per batch size, agrees up to rounding).
type Server struct {
	cfg  ServerConfig
	reqs chan *request
	// closeMu makes Close wait for senders: Evaluate holds it shared while
	// it sends, Close exclusively while it closes reqs.
	closeMu sync.RWMutex
	closed  bool
	wg      sync.WaitGroup
	pool    sync.Pool
	errs    []error // one slot per worker, read after wg.Wait

	batches, positions atomic.Int64
	// callers counts the Evaluate calls in flight.
	callers atomic.Int32
}

// splitRows is the fewest positions of a part of a split request: below
// it a network run's fixed cost outweighs a second core.
const splitRows = 4

// maxParts bounds the parts of a split request.
const maxParts = 8

// request is one Evaluate call in flight.
type request struct {
	obs    []float32
	legal  [][]env.Action
	priors [][]float32
	values []float32
	// next is the first position not yet put in a batch; it and err are
	// touched only by the worker that holds the request.
	next int
	err  error
	done chan struct{}
	// alone says the request is a part of a split one: the worker that
	// takes it runs it without gathering others.
	alone bool
}

// NewServer starts cfg.Workers goroutines evaluating net.
func NewServer(net *Network, cfg ServerConfig) (*Server, error) {
	return newServer(net, cfg, false)
}

// NewStockServer is NewServer running gorgonia's stock graph of the
// network instead of the fused one (see [Network.EvaluateStock]).
func NewStockServer(net *Network, cfg ServerConfig) (*Server, error) {
	return newServer(net, cfg, true)
}

func newServer(net *Network, cfg ServerConfig, stock bool) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("new server: %w", err)
	}
	s := &Server{
		cfg:  cfg,
		reqs: make(chan *request, 4*cfg.MaxBatch),
		errs: make([]error, cfg.Workers),
	}
	s.pool.New = func() any { return &request{done: make(chan struct{}, 1)} }
	engines := make([]*engine, cfg.Workers)
	for w := range engines {
		engines[w] = newEngine(net, cfg.MaxBatch, stock)
		if !stock {
			if err := engines[w].compile(); err != nil {
				return nil, fmt.Errorf("new server: %w", err)
			}
		}
	}
	for w, e := range engines {
		s.wg.Add(1)
		go s.work(w, e)
	}
	return s, nil
}

// Evaluate implements mcts.Evaluator; see [Network.Evaluate] for the
// contract. It blocks until all positions are evaluated.
func (s *Server) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	if err := checkEvaluate(obs, legal, priors, values); err != nil {
		return err
	}
	n := len(values)
	if n == 0 {
		return nil
	}
	parts := 1
	if s.callers.Add(1) == 1 {
		parts = max(1, min(s.cfg.Workers, n/splitRows, maxParts))
	}
	defer s.callers.Add(-1)
	var reqs [maxParts]*request
	s.closeMu.RLock()
	if s.closed {
		s.closeMu.RUnlock()
		return ErrClosed
	}
	for i := range parts {
		lo, hi := i*n/parts, (i+1)*n/parts
		r := s.pool.Get().(*request)
		r.obs, r.legal, r.priors, r.values = obs[lo*env.ObservationSize:hi*env.ObservationSize], legal[lo:hi], priors[lo:hi], values[lo:hi]
		r.next, r.err, r.alone = 0, nil, parts > 1
		reqs[i] = r
		s.reqs <- r
	}
	s.closeMu.RUnlock()
	var err error
	for _, r := range reqs[:parts] {
		<-r.done
		err = cmp.Or(err, r.err)
		*r = request{done: r.done}
		s.pool.Put(r)
	}
	return err
}

// Close stops the workers after they have answered every request already
// made, and returns the first error a worker met, if any. Later Evaluate
// calls return ErrClosed. Close is idempotent.
func (s *Server) Close() error {
	s.closeMu.Lock()
	if !s.closed {
		s.closed = true
		close(s.reqs)
	}
	s.closeMu.Unlock()
	s.wg.Wait()
	return errors.Join(s.errs...)
}

// ServerStats counts the server's work so far.
type ServerStats struct {
	// Batches is the number of network runs, Positions the number of
	// positions evaluated (without padding).
	Batches, Positions int64
}

// Stats returns the counts so far; Positions/Batches is the mean batch.
func (s *Server) Stats() ServerStats {
	return ServerStats{Batches: s.batches.Load(), Positions: s.positions.Load()}
}

// work is worker w's loop: gather a batch, run it, answer, until reqs is
// closed and drained.
func (s *Server) work(w int, e *engine) {
	defer s.wg.Done()
	var timer *time.Timer
	if s.cfg.FlushDelay > 0 {
		timer = time.NewTimer(time.Hour)
		timer.Stop()
	}
	var queue []*request // gathered; queue[0] may be partly batched
	var spans []span     // runBatch's, kept between batches: no garbage a batch
	open := true
	for open || len(queue) > 0 {
		if len(queue) == 0 {
			// The callers just answered are runnable but, with a worker
			// per core, have no core to run on: yield so that they queue
			// their next requests before this batch is gathered. Without
			// it two workers run each request alone, in batches a few
			// times smaller (BenchmarkServer reports the mean batch).
			runtime.Gosched()
			r, ok := <-s.reqs
			if !ok {
				return
			}
			queue = append(queue, r)
		}
		rows := pending(queue)
		for open && rows < s.cfg.MaxBatch && !queue[0].alone {
			var r *request
			select {
			case r, open = <-s.reqs:
			default:
				if timer == nil {
					goto run
				}
				timer.Reset(s.cfg.FlushDelay)
				select {
				case r, open = <-s.reqs:
					timer.Stop() // since Go 1.23 no stale tick can follow
				case <-timer.C:
					goto run
				}
			}
			if open {
				queue = append(queue, r)
				rows += len(r.values) - r.next
			}
		}
	run:
		var err error
		queue, err = s.runBatch(e, queue, &spans)
		if err != nil && s.errs[w] == nil {
			s.errs[w] = err
		}
	}
}

// pending counts the positions of queue not yet put in a batch.
func pending(queue []*request) int {
	n := 0
	for _, r := range queue {
		n += len(r.values) - r.next
	}
	return n
}

// span is a run of one request's positions inside a batch.
type span struct {
	r      *request
	lo, hi int // positions of r
	row    int // first batch row
}

// runBatch evaluates up to MaxBatch positions from the front of queue,
// answers the requests it completes and returns the rest of the queue. It
// lays the batch out in *scratch, which it reuses and leaves cleared.
func (s *Server) runBatch(e *engine, queue []*request, scratch *[]span) ([]*request, error) {
	spans := (*scratch)[:0]
	rows := 0
	for _, r := range queue {
		if rows == s.cfg.MaxBatch {
			break
		}
		n := min(len(r.values)-r.next, s.cfg.MaxBatch-rows)
		spans = append(spans, span{r: r, lo: r.next, hi: r.next + n, row: rows})
		r.next += n
		rows += n
	}
	out, err := e.forward(rows, func(xs []float32) {
		for _, sp := range spans {
			copy(xs[sp.row*env.ObservationSize:], sp.r.obs[sp.lo*env.ObservationSize:sp.hi*env.ObservationSize])
		}
	})
	s.batches.Add(1)
	s.positions.Add(int64(rows))
	for _, sp := range spans {
		r := sp.r
		for i := sp.lo; i < sp.hi && err == nil && r.err == nil; i++ {
			r.err = out.write(r.priors[i], &r.values[i], sp.row+i-sp.lo, r.legal[i])
		}
		if err != nil && r.err == nil {
			r.err = err
		}
	}
	// Answer the requests that are complete; only the last span's request
	// can be left with positions for the next batch.
	done := 0
	for _, sp := range spans {
		if sp.r.next < len(sp.r.values) {
			break
		}
		sp.r.done <- struct{}{}
		done++
	}
	rest := queue[:copy(queue, queue[done:])]
	clear(queue[len(rest):])
	clear(spans)
	*scratch = spans[:0]
	return rest, err
}
