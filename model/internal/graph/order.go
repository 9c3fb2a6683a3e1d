package graph

import (
	"fmt"
	"math"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/kernel"
)

// LogitOrder is the layout of a row of logits.
type LogitOrder int

const (
	// ActionOrder is env's action index order, plane-major: the stock
	// graphs'.
	ActionOrder LogitOrder = iota
	// SquareOrder is square-major, the fused graphs' (inference and
	// training): square s's
	// PolicyPlanes logits together, action (plane*36 + s) at s*PolicyPlanes
	// + plane. Its policy head computes it without a transpose (see
	// kernel.Head.ForwardSquares); only the legal actions' logits are read.
	SquareOrder
)

// Index is action a's position in a row of logits.
func (o LogitOrder) Index(a env.Action) int {
	if o == SquareOrder {
		return int(a)%env.NumSquares*PolicyPlanes + int(a)/env.NumSquares
	}
	return int(a)
}

// LegalSoftmax writes the softmax of logits (one row, in order) restricted
// to the legal actions into dst, compact over legal; other actions get no
// probability at all. It shifts by the largest legal logit, so any finite
// logits work; a NaN or +Inf legal logit, or only -Inf ones (a diverged
// network), is an error, and a -Inf one beside finite ones gets no
// probability. The exps are [kernel.ExpShifted]'s, 8 at a time in AVX2: a
// logit equal to the largest gets exp(0), 1 exactly, and one more than 86
// below it no probability.
func LegalSoftmax(dst, logits []float32, order LogitOrder, legal []env.Action) error {
	dst = dst[:len(legal)]
	top := float32(math.Inf(-1))
	for j, a := range legal {
		l := logits[order.Index(a)]
		dst[j] = l
		top = max(top, l) // NaN if any is
	}
	if t := float64(top); math.IsNaN(t) || math.IsInf(t, 0) {
		return fmt.Errorf("evaluate: network logits are not finite")
	}
	scale := 1 / kernel.ExpShifted(dst, top) // the sum is 1 or more
	for j := range dst {
		dst[j] *= scale
	}
	return nil
}
