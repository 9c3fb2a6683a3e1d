package fused

import (
	"math"

	"github.com/deathstacks/deathstacks/env"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// PolicyLossOp is the fused graph's policy loss as one Op: inputs the
// logits z, the mask m (0 legal, illegalLogit illegal) and the targets t,
// all (B, NumActions); output (1) the mean over rows of
//
//	-sum(t*z) + log(sum over legal actions of exp(z))
//
// computed with the shift by the row's largest legal logit and in float64
// sums. Built from gorgonia's primitives (as the stock graph does) the
// loss spends most of its time on exp() of the illegal actions and on
// broadcast copies; here exp() runs over the legal actions only. It keeps
// the softmax over the legal actions for policyLossGradOp.
type PolicyLossOp struct {
	op
	batch int
	probs []float32 // (B, NumActions), 0 for illegal actions
	// legal holds the indices (row and action) of the legal actions of the
	// last run, row by row: the loss and its gradient visit only these.
	// gradLegal is legal as the gradient's last run saw it, whose entries
	// its output is nonzero at.
	legal, gradLegal []int32
}

// expBits are a float32's exponent bits.
const expBits = 0x7f800000

func NewPolicyLossOp(batch int) *PolicyLossOp {
	s := tensor.Shape{batch, env.NumActions}
	return &PolicyLossOp{
		op:    newOp("fusedPolicyLoss", tensor.Shape{1}, s, s, s),
		batch: batch,
		probs: make([]float32, batch*env.NumActions),
	}
}

func (op *PolicyLossOp) Do(vals ...G.Value) (G.Value, error) {
	in, err := op.inputs(vals)
	if err != nil {
		return nil, err
	}
	z, mask, target := in[0], in[1], in[2]
	const na = env.NumActions
	// Only the last run's legal actions have a nonzero probability.
	for _, i := range op.legal {
		op.probs[i] = 0
	}
	op.legal = op.legal[:0]
	var total float64
	for b := range op.batch {
		zr, mr, tr := z[b*na:(b+1)*na], mask[b*na:(b+1)*na], target[b*na:(b+1)*na]
		pr := op.probs[b*na : (b+1)*na]
		first := len(op.legal)
		top := math.Inf(-1)
		// A logit, legal or not, that is infinite or NaN (all exponent
		// bits set) makes the loss NaN, as the sum over all actions does.
		nonFinite := false
		for a, m := range mr {
			if math.Float32bits(zr[a])&expBits == expBits {
				nonFinite = true
			}
			if m == 0 {
				op.legal = append(op.legal, int32(b*na+a))
				top = max(top, float64(zr[a]))
			}
		}
		var sum, dot float64
		if nonFinite {
			dot = math.NaN()
		}
		for _, i := range op.legal[first:] {
			a := int(i) - b*na
			e := math.Exp(float64(zr[a]) - top)
			pr[a] = float32(e)
			sum += e
			dot += float64(tr[a]) * float64(zr[a])
		}
		for _, i := range op.legal[first:] {
			a := int(i) - b*na
			pr[a] = float32(float64(pr[a]) / sum)
		}
		total += top + math.Log(sum) - dot
	}
	op.out.Float32s()[0] = float32(total / float64(op.batch))
	return op.out, nil
}

// DiffWRT: the loss is differentiated with regard to the logits only.
func (op *PolicyLossOp) DiffWRT(inputs int) []bool {
	d := diffWRT(inputs, 0, false)
	d[0] = true
	return d
}

// SymDiff returns the logits' gradient, (softmax - t) / B times the
// loss's gradient.
func (op *PolicyLossOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	// The backward pass: inputs the targets and the loss's gradient,
	// output the logits' gradient. It reads the softmax the forward op
	// kept in the same run.
	bw := newGradOp("fusedPolicyLossGrad", op.in[0], []tensor.Shape{op.in[2], {1}}, func(in [][]float32, out []float32) {
		// Both the softmax and the targets are 0 for illegal actions, and
		// out is nonzero only at the legal actions of the last run.
		scale := in[1][0] / float32(op.batch)
		for _, i := range op.gradLegal {
			out[i] = 0
		}
		for _, i := range op.legal {
			out[i] = scale * (op.probs[i] - in[0][i])
		}
		op.gradLegal = append(op.gradLegal[:0], op.legal...)
	})
	dz, err := G.ApplyOp(bw, inputs[2], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dz, nil, nil}, nil
}
