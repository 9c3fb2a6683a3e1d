package stepped

import (
	"errors"
	"fmt"
	"sync"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
)

// Stats counts what a driven run evaluated: positions, in batches (one
// evaluator call each).
type Stats struct {
	Positions, Batches int64
}

// Drive runs works to their end with Go evaluators: the searches of many
// games batched for a network the process runs itself, as [Run] batches
// them for a caller's. Each work has a slot, a coroutine, as in a Run,
// and each evaluator a lane, a goroutine of its own (one per core, each
// with its own network engine). A lane takes searches ready to go on (an
// even share of those whose works go on), resumes each until it asks for
// leaves or its work returns, evaluates the leaves of them all with one
// call of its evaluator and puts the searches back. A search goes to
// whichever lane is free, so no lane waits for another's slow search and
// the lanes share the work to the last search. An evaluator is called by
// its own lane only: it need not be safe for concurrent use.
//
// Leaf values obey the one rule (see [Run]). The first error of an
// evaluator or of a work stops the run: the other searches get
// ErrAborted from their evaluator, and Drive returns once every work has
// returned, with the evaluator's error or the works' errors.
func Drive(works []Work, maxLeaves int, evals []mcts.Evaluator) (Stats, error) {
	if len(evals) == 0 {
		return Stats{}, errors.New("drive: no evaluator")
	}
	if maxLeaves < 1 {
		return Stats{}, fmt.Errorf("drive: %d leaves at once: want at least 1", maxLeaves)
	}
	p := &pool{live: len(works), lanes: len(evals)}
	p.wake.L = &p.mu
	slots := make([]*stepSlot, len(works))
	for i, w := range works {
		slots[i] = &stepSlot{work: w, maxLeaves: maxLeaves, row: -1}
	}
	p.ready = append(p.ready, slots...)
	var wg sync.WaitGroup
	stats := make([]Stats, len(evals))
	for i, e := range evals {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stats[i] = p.lane(e, maxLeaves)
		}()
	}
	wg.Wait()
	var total Stats
	for _, s := range stats {
		total.Positions += s.Positions
		total.Batches += s.Batches
	}
	for _, s := range p.ready {
		s.abort()
	}
	if p.evalErr != nil {
		return total, p.evalErr
	}
	return total, slotErrors(slots)
}

// pool holds a driven run's searches between the lanes' rounds.
type pool struct {
	mu   sync.Mutex
	wake sync.Cond
	// ready are the searches free to go on, oldest first; live counts
	// the works that have not returned.
	ready       []*stepSlot
	live, lanes int
	// failed says a work or an evaluator failed (evalErr, the first
	// evaluator's error): the lanes stop taking searches.
	failed  bool
	evalErr error
}

// take waits for searches ready to go on and takes the oldest of them,
// up to an even share of the live ones; none once every work has
// returned or the run failed.
func (p *pool) take(dst []*stepSlot) []*stepSlot {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.ready) == 0 && p.live > 0 && !p.failed {
		p.wake.Wait()
	}
	if p.failed {
		return dst[:0]
	}
	n := min(len(p.ready), (p.live+p.lanes-1)/p.lanes)
	dst = append(dst[:0], p.ready[:n]...)
	k := copy(p.ready, p.ready[n:])
	clear(p.ready[k:])
	p.ready = p.ready[:k]
	return dst
}

// put gives back the searches of a lane's round, counting out those whose
// works have returned; evalErr is the round's evaluator error.
func (p *pool) put(slots []*stepSlot, evalErr error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range slots {
		if s.done {
			p.live--
			p.failed = p.failed || s.err != nil
			continue
		}
		p.ready = append(p.ready, s)
	}
	if evalErr != nil && p.evalErr == nil {
		p.evalErr, p.failed = evalErr, true
	}
	p.wake.Broadcast()
}

// lane runs rounds with eval until no search goes on, and counts what it
// evaluated.
func (p *pool) lane(eval mcts.Evaluator, maxLeaves int) Stats {
	var (
		b     goBatch
		slots []*stepSlot
		stats Stats
	)
	for {
		if slots = p.take(slots); len(slots) == 0 {
			return stats
		}
		b.reset(len(slots) * maxLeaves)
		for _, s := range slots {
			s.batch = &b
			s.resume()
		}
		err := recovered(func() error { return b.evaluate(eval) })
		if b.n > 0 {
			stats.Positions += int64(b.n)
			stats.Batches++
		}
		for _, s := range slots {
			if s.row < 0 {
				continue
			}
			if err == nil {
				_, err = s.setFed()
			}
			if err != nil {
				s.abort() // its leaves have no values
			}
		}
		p.put(slots, err)
	}
}

// goBatch is a lane's batch of leaves: their observations, legal actions
// and values, and the searches' own slices for their priors, which the
// evaluator fills.
type goBatch struct {
	n      int
	obs    []float32
	legal  [][]env.Action
	priors [][]float32
	values []float32
}

// reset empties the batch, with room for capacity leaves.
func (b *goBatch) reset(capacity int) {
	b.n = 0
	if len(b.values) < capacity {
		b.obs = make([]float32, capacity*env.ObservationSize)
		b.legal = make([][]env.Action, capacity)
		b.priors = make([][]float32, capacity)
		b.values = make([]float32, capacity)
	}
}

// add implements leafBatch.
func (b *goBatch) add(obs []float32, legal [][]env.Action, priors [][]float32) int {
	row := b.n
	b.n += len(legal)
	copy(b.obs[row*env.ObservationSize:], obs)
	copy(b.legal[row:], legal)
	copy(b.priors[row:], priors)
	return row
}

// evaluate evaluates the batch's leaves, if any, with one call of eval.
func (b *goBatch) evaluate(eval mcts.Evaluator) error {
	n := b.n
	if n == 0 {
		return nil
	}
	if err := eval.Evaluate(b.obs[:n*env.ObservationSize], b.legal[:n], b.priors[:n], b.values[:n]); err != nil {
		return fmt.Errorf("evaluating a batch of %d positions: %w", n, err)
	}
	return nil
}

// set implements leafBatch: the evaluator wrote the priors into the
// search's own slices; the values are checked and copied.
func (b *goBatch) set(s *stepSlot) (int, error) {
	for j := range s.values {
		v := b.values[s.row+j]
		if err := checkValue(v, s.row+j); err != nil {
			return s.row + j, err
		}
		s.values[j] = v
	}
	return 0, nil
}
