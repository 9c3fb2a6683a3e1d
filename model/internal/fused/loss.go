package fused

import (
	"fmt"
	"math"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/kernel"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Targets are the policy targets of a batch, compact: for each row its
// legal actions and their target probabilities, rows one after the other.
// The caller fills them before each run of a graph with a PolicyLossOp
// over them.
type Targets struct {
	// Index is each legal action's index in the batch's logits (row *
	// NumActions + the action's position in the row).
	Index []int32
	// Prob is each one's target probability.
	Prob []float32
	// End[b] is the end of row b's entries in Index and Prob.
	End []int
}

// PolicyLossOp is the fused graph's policy loss as one Op: input the
// logits z (B, NumActions), output (1) the mean over rows of
//
//	-sum(t*z) + log(sum over legal actions of exp(z))
//
// with t and the legal actions from its Targets, computed with the shift
// by the row's largest legal logit and in float64 sums. Built from
// gorgonia's primitives (as the stock graph does) the loss spends most of
// its time on exp() of the illegal actions and on broadcast copies; here
// everything runs over the legal actions only (reading a dense mask and
// dense targets of 6912 values a row would take most of the op's time). It
// keeps the softmax over the legal actions for its gradient op, and its
// mean entropy (Entropy).
type PolicyLossOp struct {
	op
	batch   int
	targets *Targets
	probs   []float32 // (B, NumActions), 0 for illegal actions
	entropy float64   // the last run's mean entropy of the softmax
	// probsAt and gradAt are the indices of the last run's legal actions
	// as the loss and its gradient saw them: where probs and the
	// gradient's output are nonzero.
	probsAt, gradAt []int32
}

// NewPolicyLossOp returns the loss of batch rows over targets.
func NewPolicyLossOp(batch int, targets *Targets) *PolicyLossOp {
	return &PolicyLossOp{
		op:      newOp("fusedPolicyLoss", tensor.Shape{1}, tensor.Shape{batch, env.NumActions}),
		batch:   batch,
		targets: targets,
		probs:   make([]float32, batch*env.NumActions),
	}
}

func (op *PolicyLossOp) Do(vals ...G.Value) (G.Value, error) {
	in, err := op.inputs(vals)
	if err != nil {
		return nil, err
	}
	z, t := in[0], op.targets
	if err := t.check(op.batch); err != nil {
		return nil, err
	}
	for _, i := range op.probsAt {
		op.probs[i] = 0
	}
	op.probsAt = append(op.probsAt[:0], t.Index...)
	// A logit, legal or not, that is infinite or NaN makes the loss NaN,
	// as a sum over all actions would.
	var total, entropy float64
	if !kernel.AllFinite(z) {
		total = math.NaN()
	}
	start := 0
	for _, end := range t.End {
		index, prob := t.Index[start:end], t.Prob[start:end]
		start = end
		top := math.Inf(-1)
		for _, i := range index {
			top = max(top, float64(z[i]))
		}
		var sum, dot float64
		for k, i := range index {
			e := math.Exp(float64(z[i]) - top)
			op.probs[i] = float32(e)
			sum += e
			dot += float64(prob[k]) * float64(z[i])
		}
		// The entropy -sum(p*log(p)), with log(p) = z - top - log(sum):
		// top + log(sum) - sum(p*z).
		var pz float64
		for _, i := range index {
			p := float64(op.probs[i]) / sum
			op.probs[i] = float32(p)
			pz += p * float64(z[i])
		}
		lse := top + math.Log(sum)
		total += lse - dot
		entropy += lse - pz
	}
	op.out.Float32s()[0] = float32(total / float64(op.batch))
	op.entropy = entropy / float64(op.batch)
	return op.out, nil
}

// Entropy is the mean over rows of the entropy of the last run's softmax
// over the legal actions, in nats.
func (op *PolicyLossOp) Entropy() float64 { return op.entropy }

// check reports what is wrong with t as the targets of batch rows.
func (t *Targets) check(batch int) error {
	if len(t.End) != batch || len(t.Index) != len(t.Prob) || (batch > 0 && t.End[batch-1] != len(t.Index)) {
		return fmt.Errorf("fusedPolicyLoss: targets of %d rows (%d entries, %d probabilities), want %d rows", len(t.End), len(t.Index), len(t.Prob), batch)
	}
	start := 0
	for b, end := range t.End {
		if end <= start {
			return fmt.Errorf("fusedPolicyLoss: row %d has no legal action", b)
		}
		for _, i := range t.Index[start:end] {
			if int(i) < b*env.NumActions || int(i) >= (b+1)*env.NumActions {
				return fmt.Errorf("fusedPolicyLoss: index %d outside row %d", i, b)
			}
		}
		start = end
	}
	return nil
}

// DiffWRT: the loss is differentiated with regard to the logits.
func (op *PolicyLossOp) DiffWRT(inputs int) []bool { return diffWRT(inputs, 0, true) }

// SymDiff returns the logits' gradient, (softmax - t) / B times the
// loss's gradient.
func (op *PolicyLossOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	// The backward pass: inputs the loss (which orders it after the
	// forward op) and its gradient, output the logits' gradient. It reads
	// the softmax the forward op kept and the targets of the same run.
	bw := newGradOp("fusedPolicyLossGrad", op.in[0], []tensor.Shape{{1}, {1}}, func(in [][]float32, out []float32) {
		// Both the softmax and the targets are 0 for illegal actions, and
		// out is nonzero only at the legal actions of the last run.
		scale := in[1][0] / float32(op.batch)
		for _, i := range op.gradAt {
			out[i] = 0
		}
		for k, i := range op.targets.Index {
			out[i] = scale * (op.probs[i] - op.targets.Prob[k])
		}
		op.gradAt = append(op.gradAt[:0], op.targets.Index...)
	})
	dz, err := G.ApplyOp(bw, output, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dz}, nil
}
