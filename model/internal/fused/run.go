package fused

import (
	"fmt"

	G "gorgonia.org/gorgonia"
)

// Run is an inference graph of the package's fused ops, run in the
// calling goroutine. gorgonia's machines run every RunAll on a new
// goroutine while the caller waits on an OS thread it has locked, so each
// run hands the core to another thread and back: two thread wake-ups per
// run, during which the core idles. With two workers on a loaded machine
// the wake-ups took up to milliseconds, and the trace of BenchmarkServer
// (clients=16, per-call=8, workers=2; go test -trace) showed the two Ps
// idle 23-30% of the time, against at most 0.2% when the workers ran the
// ops themselves. The fused ops need none of a machine's services: each
// returns a buffer it owns and never writes its inputs, so running them
// in topological order is the whole computation.
type Run struct {
	steps []step
	vals  []G.Value // each node's value, in topological order
}

// step is one op node: its op and the indices of its inputs' values.
type step struct {
	op   rowsOp
	args []int
	out  int
	in   []G.Value // scratch for the op's arguments
}

// rowsOp is a fused inference op. Each returns a buffer it owns (op's
// out) and can compute the first rows positions of its batch alone:
// NewRun accepts no other op, so that no op allocates or returns a
// view of its input, and a short batch costs no padding rows.
type rowsOp interface {
	G.Op
	doRows(rows int, vals ...G.Value) (G.Value, error)
}

// NewRun prepares g, whose nodes must be bound inputs or fused ops.
func NewRun(g *G.ExprGraph) (*Run, error) {
	sorted, err := G.Sort(g)
	if err != nil {
		return nil, fmt.Errorf("sort fused graph: %w", err)
	}
	r := &Run{vals: make([]G.Value, len(sorted))}
	index := make(map[int64]int, len(sorted))
	// Sort puts each node before its inputs: run from the end.
	for i := range sorted {
		n := sorted[len(sorted)-1-i]
		index[n.ID()] = i
		if n.Op() == nil {
			if r.vals[i] = n.Value(); r.vals[i] == nil {
				return nil, fmt.Errorf("fused graph: input %s has no value", n.Name())
			}
			continue
		}
		op, ok := n.Op().(rowsOp)
		if !ok {
			return nil, fmt.Errorf("fused graph: node %s runs %v, not a fused op", n.Name(), n.Op())
		}
		s := step{op: op, out: i}
		for it := g.From(n.ID()); it.Next(); {
			s.args = append(s.args, index[it.Node().ID()])
		}
		s.in = make([]G.Value, len(s.args))
		r.steps = append(r.steps, s)
	}
	return r, nil
}

// Run runs every op once on the first rows positions of the batch; the
// outputs' other rows keep what they held.
func (r *Run) Run(rows int) error {
	for i := range r.steps {
		s := &r.steps[i]
		for j, a := range s.args {
			s.in[j] = r.vals[a]
		}
		v, err := s.op.doRows(rows, s.in...)
		if err != nil {
			return err
		}
		r.vals[s.out] = v
	}
	return nil
}
