package fused

import (
	"fmt"

	G "gorgonia.org/gorgonia"
)

// Run is a graph of the package's fused ops, run in the calling
// goroutine: an inference graph (NewRun), or a training graph
// (NewTrainingRun). gorgonia's machines run every RunAll on a new
// goroutine while the caller waits on an OS thread it has locked, so each
// run hands the core to another thread and back: two thread wake-ups per
// run, during which the core idles. On a busy machine a wake-up can take
// milliseconds, and the Ps then idle much of the time (see the trace of
// BenchmarkServer: go test -trace). The fused ops need none of a
// machine's services: each
// returns a buffer it owns and never writes its inputs, so running them
// in topological order is the whole computation.
type Run struct {
	steps []step
	vals  []G.Value       // each node's value, in topological order
	index map[*G.Node]int // each node's place in vals
}

// step is one op node: its op and the indices of its inputs' values.
type step struct {
	op   G.Op
	rows rowsOp // op, in an inference graph; nil in a training graph
	// prealloc is op, in a training graph, if it can write its value into
	// the last run's (gorgonia's arithmetic), instead of allocating it.
	prealloc G.UsePreallocDoer
	args     []int
	out      int
	in       []G.Value // scratch for the op's arguments
}

// rowsOp is a fused inference op. Each returns a buffer it owns (op's
// out) and can compute the first rows positions of its batch alone:
// NewRun accepts no other op, so that no op allocates or returns a
// view of its input, and a short batch costs no padding rows.
type rowsOp interface {
	G.Op
	doRows(rows int, vals ...G.Value) (G.Value, error)
}

// NewRun prepares g, an inference graph, whose nodes must be bound inputs
// or fused inference ops.
func NewRun(g *G.ExprGraph) (*Run, error) { return newRun(g, true) }

// NewTrainingRun prepares g, a training graph with its gradients (see
// gorgonia.Grad), whose nodes must be bound inputs, constants or ops
// whose Do computes their value: the fused training ops and gorgonia's
// arithmetic (the losses' sums and weights, the gradients' sums). A node's
// value is rewritten by each run, never accumulated: the fused ops'
// buffers, and gorgonia's ops write into their last run's value where
// they can (as a tape machine's registers). Read it with Value. A graph
// read with gorgonia.Read is not run by this: Read is a machine's
// service.
func NewTrainingRun(g *G.ExprGraph) (*Run, error) { return newRun(g, false) }

func newRun(g *G.ExprGraph, inference bool) (*Run, error) {
	sorted, err := G.Sort(g)
	if err != nil {
		return nil, fmt.Errorf("sort fused graph: %w", err)
	}
	r := &Run{vals: make([]G.Value, len(sorted)), index: make(map[*G.Node]int, len(sorted))}
	// Sort puts each node before its inputs: run from the end.
	for i := range sorted {
		n := sorted[len(sorted)-1-i]
		r.index[n] = i
		if n.Op() == nil {
			if r.vals[i] = n.Value(); r.vals[i] == nil {
				return nil, fmt.Errorf("fused graph: input %s has no value", n.Name())
			}
			continue
		}
		s := step{op: n.Op(), out: i}
		if inference {
			op, ok := n.Op().(rowsOp)
			if !ok {
				return nil, fmt.Errorf("fused graph: node %s runs %v, not a fused op", n.Name(), n.Op())
			}
			s.rows = op
		} else if p, ok := n.Op().(G.UsePreallocDoer); ok {
			s.prealloc = p
		}
		for it := g.From(n.ID()); it.Next(); {
			s.args = append(s.args, r.index[it.Node().(*G.Node)])
		}
		s.in = make([]G.Value, len(s.args))
		r.steps = append(r.steps, s)
	}
	return r, nil
}

// Run runs every op of an inference graph once on the first rows
// positions of the batch; the outputs' other rows keep what they held.
func (r *Run) Run(rows int) error {
	for i := range r.steps {
		s := &r.steps[i]
		for j, a := range s.args {
			s.in[j] = r.vals[a]
		}
		v, err := s.rows.doRows(rows, s.in...)
		if err != nil {
			return err
		}
		r.vals[s.out] = v
	}
	return nil
}

// RunAll runs every op of a training graph once, with Do.
func (r *Run) RunAll() error {
	for i := range r.steps {
		s := &r.steps[i]
		for j, a := range s.args {
			s.in[j] = r.vals[a]
		}
		var v G.Value
		var err error
		if last := r.vals[s.out]; s.prealloc != nil && last != nil {
			v, err = s.prealloc.UsePreallocDo(last, s.in...)
		} else {
			v, err = s.op.Do(s.in...)
		}
		if err != nil {
			return fmt.Errorf("%v: %w", s.op, err)
		}
		r.vals[s.out] = v
	}
	return nil
}

// Value is node n's value after the last run; nil for a node of another
// graph.
func (r *Run) Value(n *G.Node) G.Value {
	i, ok := r.index[n]
	if !ok {
		return nil
	}
	return r.vals[i]
}
