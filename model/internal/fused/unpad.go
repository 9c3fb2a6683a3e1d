package fused

import (
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/kernel"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// UnpadOp hands the trunk's output (B, 8, 8, stride), channel-last with a
// zero border, to gorgonia's own nodes as a matrix (B*36, channels): one
// row per square, square-major per position, without the border and the
// padding channels. Training's auxiliary heads (heads that only training
// needs: a 1x1 convolution is then a matrix product) read it; its gradient
// scatters the rows back into the padded layout.
type UnpadOp struct {
	op
	batch, channels, stride int
}

// NewUnpadOp returns the op for batch positions of w's trunk.
func NewUnpadOp(w *Net, batch int) *UnpadOp {
	in := tensor.Shape{batch, kernel.PaddedSide, kernel.PaddedSide, w.stride}
	return &UnpadOp{
		op:    newOp("fusedUnpad", tensor.Shape{batch * env.NumSquares, w.dims.Channels}, in),
		batch: batch, channels: w.dims.Channels, stride: w.stride,
	}
}

// pixel is the offset in the padded layout of square s of position b.
func (op *UnpadOp) pixel(b, s int) int {
	y, x := s/boardSide+1, s%boardSide+1
	return ((b*kernel.PaddedSide+y)*kernel.PaddedSide + x) * op.stride
}

func (op *UnpadOp) Do(vals ...G.Value) (G.Value, error) {
	in, err := op.inputs(vals)
	if err != nil {
		return nil, err
	}
	out := op.out.Float32s()
	for b := range op.batch {
		for s := range env.NumSquares {
			row := (b*env.NumSquares + s) * op.channels
			copy(out[row:row+op.channels], in[0][op.pixel(b, s):])
		}
	}
	return op.out, nil
}

// DiffWRT: the input is differentiable.
func (op *UnpadOp) DiffWRT(inputs int) []bool { return diffWRT(inputs, 0, true) }

// SymDiff returns the input's gradient: the rows' gradients at their
// squares, zero on the border and the padding channels.
func (op *UnpadOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	bw := newGradOp("fusedUnpadGrad", op.in[0], []tensor.Shape{op.out.Shape()}, func(in [][]float32, out []float32) {
		clear(out)
		for b := range op.batch {
			for s := range env.NumSquares {
				row := (b*env.NumSquares + s) * op.channels
				copy(out[op.pixel(b, s):], in[0][row:row+op.channels])
			}
		}
	})
	dx, err := G.ApplyOp(bw, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx}, nil
}
