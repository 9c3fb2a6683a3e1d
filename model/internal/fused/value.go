package fused

import (
	"fmt"
	"math"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/kernel"
	"gonum.org/v1/gonum/blas"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// valueFC computes the value head's fully connected layers for rows
// positions: hidden (rows x fc1.Stride()) = relu(in fc1.w + fc1.b), by
// fc1, and out[b] = tanh(hidden[b] fc2[0] + fc2[1]), with in (rows x k)
// the value convolution's planes and fc2 the second layer's weights and
// bias.
func valueFC(rows int, in []float32, fc1 *kernel.Dense, fc2 [][]float32, hidden, out []float32) {
	fc1.Forward(rows, in, hidden)
	ld, w2 := fc1.Stride(), fc2[0]
	for b := range rows {
		sum := fc2[1][0]
		for j, v := range hidden[b*ld:][:len(w2)] {
			sum += v * w2[j]
		}
		out[b] = float32(math.Tanh(float64(sum)))
	}
}

// ValueLossOp is a training graph's value head after its convolution and
// the value loss, as one Op: inputs the value convolution's planes (B,
// ValuePlanes*36) and the fully connected layers' learnables (fc1.w,
// fc1.b, fc2.w, fc2.b), output (1) the mean over rows of (value -
// result)^2, the value as in ValueOp and the results from the slice the
// op was made with, which the caller fills before each run. As gorgonia's
// nodes, the layers, the loss and their gradients would be some forty
// nodes, each allocating its value on every run. It keeps the values (Values)
// and the hidden layer for its gradient op.
type ValueLossOp struct {
	op
	batch, hidden int
	result        []float32
	fc            [][]float32 // the last run's fully connected layers' weights
	fc1           kernel.Dense
	h             []float32 // (B, fc1.Stride()), after the ReLU
	values        *tensor.Dense
}

// NewValueLossOp returns the value loss of batch positions of a network
// of d against result (batch values).
func NewValueLossOp(d Dims, batch int, result []float32) *ValueLossOp {
	in := []tensor.Shape{{batch, d.ValuePlanes * env.NumSquares}}
	fc := TrunkParams(d.Blocks) + 4 // after the heads' convolutions
	for _, s := range d.Shapes[fc : fc+4] {
		in = append(in, s)
	}
	return &ValueLossOp{
		op:    newOp("fusedValueLoss", tensor.Shape{1}, in...),
		batch: batch, hidden: d.ValueHidden, result: result,
		h:      make([]float32, batch*kernel.Stride(d.ValueHidden)),
		values: tensor.New(tensor.WithShape(batch, 1), tensor.Of(tensor.Float32)),
	}
}

// Values are the last run's values, (B, 1): the same buffer every run.
func (op *ValueLossOp) Values() *tensor.Dense { return op.values }

func (op *ValueLossOp) Do(vals ...G.Value) (G.Value, error) {
	in, err := op.inputs(vals)
	if err != nil {
		return nil, err
	}
	if len(op.result) != op.batch {
		return nil, fmt.Errorf("%s: %d results for %d positions", op.name, len(op.result), op.batch)
	}
	op.fc = in[1:]
	op.fc1.Pack(op.fc[0], op.in[0][1], op.hidden, op.fc[1], true)
	y := op.values.Float32s()
	valueFC(op.batch, in[0], &op.fc1, op.fc[2:], op.h, y)
	var sum float64
	for b, v := range y {
		d := float64(v) - float64(op.result[b])
		sum += d * d
	}
	op.out.Float32s()[0] = float32(sum / float64(op.batch))
	return op.out, nil
}

// DiffWRT is true for every input.
func (op *ValueLossOp) DiffWRT(inputs int) []bool { return diffWRT(inputs, 0, true) }

// SymDiff returns the gradients of the planes and the four learnables:
// sections of one backward op's output.
func (op *ValueLossOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	// The backward pass: inputs the planes, the loss (which orders it
	// after the forward op) and the loss's gradient; output the gradients
	// of the planes, fc1.w, fc1.b, fc2.w and fc2.b, flat in that order.
	k, hid, bs := op.in[0][1], op.hidden, op.batch
	dz := make([]float32, bs)     // the gradient before tanh
	dh := make([]float32, bs*hid) // the gradient before the ReLU
	bw := newGradOp(op.name+"Grad", tensor.Shape{paramsSize(inputs)}, []tensor.Shape{op.in[0], {1}, {1}},
		func(in [][]float32, out []float32) {
			x, scale := in[0], 2*in[2][0]/float32(bs)
			w2 := op.fc[2]
			dx, out := out[:bs*k], out[bs*k:]
			dw1, out := out[:k*hid], out[k*hid:]
			db1, out := out[:hid], out[hid:]
			dw2, db2 := out[:hid], out[hid:hid+1]
			clear(db1)
			clear(dw2)
			db2[0] = 0
			for b, y := range op.values.Float32s() {
				dz[b] = scale * (y - op.result[b]) * (1 - y*y)
				db2[0] += dz[b]
				h, g := op.h[b*op.fc1.Stride():][:hid], dh[b*hid:(b+1)*hid]
				for j, v := range h {
					dw2[j] += dz[b] * v
					g[j] = 0
					if v > 0 {
						g[j] = dz[b] * w2[j]
					}
					db1[j] += g[j]
				}
			}
			kernel.BLAS{}.Sgemm(blas.Trans, blas.NoTrans, k, hid, bs, 1, x, k, dh, hid, 0, dw1, hid)
			kernel.BLAS{}.Sgemm(blas.NoTrans, blas.Trans, bs, k, hid, 1, dh, hid, op.fc[0], hid, 0, dx, k)
		})
	return sections(bw, inputs, 0, inputs[0], output, grad)
}
