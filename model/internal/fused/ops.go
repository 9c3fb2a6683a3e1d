package fused

import (
	"fmt"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/kernel"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TrunkOp is the stem and the residual tower as one Op (kernel.Tower):
// input the observations (B, planes, 6, 6), output the last block's
// activations (B, 8, 8, stride), channel-last with a zero border.
//
// At inference the weights come from the engine's Net. For training
// (train) the op also takes the trunk's learnables as inputs, packs them
// on every run, keeps every layer's activations for the backward pass, and
// is differentiable (SymDiff) through trunkGradOp.
type TrunkOp struct {
	op
	w     *Net
	run   *kernel.TowerRun
	train bool
}

func NewTrunkOp(w *Net, batch int, train bool) *TrunkOp {
	d := w.dims
	in := []tensor.Shape{{batch, env.NumPlanes, boardSide, boardSide}}
	if train {
		for _, s := range d.Shapes[:TrunkParams(d.Blocks)] {
			in = append(in, s)
		}
	}
	run := kernel.NewTowerRun(batch, env.NumPlanes, d.Channels, d.Blocks, train)
	op := &TrunkOp{
		op: newOp("fusedTrunk", tensor.Shape{batch, kernel.PaddedSide, kernel.PaddedSide, w.stride}, in...),
		w:  w, run: run, train: train,
	}
	op.out = tensor.New(tensor.WithShape(op.out.Shape()...), tensor.WithBacking(run.Output()))
	return op
}

func (op *TrunkOp) Do(vals ...G.Value) (G.Value, error) { return op.doRows(op.in[0][0], vals...) }

func (op *TrunkOp) doRows(rows int, vals ...G.Value) (G.Value, error) {
	in, err := op.inputs(vals)
	if err != nil {
		return nil, err
	}
	if op.train {
		op.w.loadTrunk(in[1:])
	}
	op.run.Forward(&op.w.trunk, in[0], rows)
	return op.out, nil
}

// DiffWRT is false for the observations, true for the learnables.
func (op *TrunkOp) DiffWRT(inputs int) []bool { return diffWRT(inputs, 1, op.train) }

// SymDiff returns the learnables' gradients: sections of trunkGradOp's
// output, which runs the whole backward pass of the tower at once.
func (op *TrunkOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	// The backward pass: inputs the trunk's output (which orders it after
	// the forward op) and its gradient, output the gradients of the
	// trunk's learnables, flat in Dims.Shapes order. It reads the
	// activations the forward op kept in the same run.
	bw := newGradOp("fusedTrunkGrad", tensor.Shape{paramsSize(inputs[1:])}, []tensor.Shape{op.out.Shape(), op.out.Shape()},
		func(in [][]float32, out []float32) {
			op.run.Backward(&op.w.trunk, in[1], splitParams(out, op.w.dims.Shapes[:TrunkParams(op.w.dims.Blocks)]))
		})
	return op.backward(op.train, bw, inputs, 1, output, grad)
}

// HeadOp is a head's 1x1 convolution (kernel.Head) of the trunk's output
// into planes of 6x6: the value head's planes in training, flattened
// plane-major (NCHW) per position, or the policy's logits, square-major
// (the logits of each square's planes together, which the model package
// reads so). For training (train) it also takes the head's weights and
// bias as inputs, packs them on every run and is differentiable through
// headGradOp.
type HeadOp struct {
	op
	p                    *kernel.Head
	batch                int
	stride               int
	relu, squares, train bool
}

// NewHeadOp returns an op running w's policy head, or its value head's
// convolution (through ReLU) if value, on batch positions. With train, the
// head's weights and bias are inputs too.
func NewHeadOp(w *Net, batch int, value, train bool) *HeadOp {
	name, p, planes, wi := "fusedPolicy", &w.policy, policyPlanes, TrunkParams(w.dims.Blocks)
	if value {
		name, p, planes, wi = "fusedValueConv", &w.value, w.dims.ValuePlanes, wi+2
	}
	in := []tensor.Shape{{batch, kernel.PaddedSide, kernel.PaddedSide, w.stride}}
	if train {
		in = append(in, w.dims.Shapes[wi], w.dims.Shapes[wi+1])
	}
	return &HeadOp{
		op: newOp(name, tensor.Shape{batch, planes * env.NumSquares}, in...),
		p:  p, batch: batch, stride: w.stride, relu: value, squares: !value, train: train,
	}
}

func (op *HeadOp) Do(vals ...G.Value) (G.Value, error) { return op.doRows(op.batch, vals...) }

func (op *HeadOp) doRows(rows int, vals ...G.Value) (G.Value, error) {
	in, err := op.inputs(vals)
	if err != nil {
		return nil, err
	}
	if op.train {
		op.p.Pack(in[1], op.in[1][0], op.in[1][1], in[2], op.relu, op.squares)
	}
	if op.squares {
		// The output has room for it: planes is a multiple of the
		// kernel's width (policyPlanes; the tests run it).
		op.p.ForwardSquares(rows, in[0], op.stride, op.out.Float32s())
		return op.out, nil
	}
	op.p.Forward(rows, in[0], op.stride, op.out.Float32s())
	return op.out, nil
}

// DiffWRT is true for every input of a training op.
func (op *HeadOp) DiffWRT(inputs int) []bool { return diffWRT(inputs, 0, op.train) }

// SymDiff returns the gradients of the trunk's output, the weights and
// the bias: sections of headGradOp's output.
func (op *HeadOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	// The backward pass: inputs the trunk's output, the head's output and
	// its gradient; output the gradients of the trunk's output, the
	// weights and the bias, flat in that order.
	nh, nw := shapeSize(op.in[0]), shapeSize(op.in[1])
	bw := newGradOp(op.name+"Grad", tensor.Shape{paramsSize(inputs)}, []tensor.Shape{op.in[0], op.out.Shape(), op.out.Shape()},
		func(in [][]float32, out []float32) {
			backward := op.p.Backward
			if op.squares {
				backward = op.p.BackwardSquares
			}
			backward(op.batch, in[0], op.stride, in[1], in[2], out[:nh], out[nh:nh+nw], out[nh+nw:])
		})
	return op.backward(op.train, bw, inputs, 0, inputs[0], output, grad)
}

// sectionOp is one input's gradient: a section of a gradient op's flat
// output, shaped like the input, read in place (its value is a view of
// the gradient op's buffer, which that op rewrites each run; nothing
// writes it in between, as no op writes its inputs).
type sectionOp struct {
	op
	off int
}

func (op *sectionOp) Do(vals ...G.Value) (G.Value, error) {
	in, err := op.inputs(vals)
	if err != nil {
		return nil, err
	}
	n := op.out.Shape().TotalSize()
	if op.off+n > len(in[0]) {
		return nil, fmt.Errorf("%s: section of %d values at %d of %d", op.name, n, op.off, len(in[0]))
	}
	sec := in[0][op.off : op.off+n]
	if &op.out.Float32s()[0] != &sec[0] {
		op.out = tensor.New(tensor.WithShape(op.out.Shape()...), tensor.WithBacking(sec))
	}
	return op.out, nil
}

// backward returns the gradients of a training op (train) with inputs:
// for each input from first on, a section of the output of its backward
// op bw applied to bwInputs. An inference op has none.
func (op *op) backward(train bool, bw G.Op, inputs G.Nodes, first int, bwInputs ...*G.Node) (G.Nodes, error) {
	if !train {
		return nil, fmt.Errorf("%s: an inference op has no gradient", op.name)
	}
	return sections(bw, inputs, first, bwInputs...)
}

// sections applies bw to bwInputs and returns, for each of inputs from
// first on, a section of bw's output shaped like it (nil before first).
func sections(bw G.Op, inputs G.Nodes, first int, bwInputs ...*G.Node) (G.Nodes, error) {
	flat, err := G.ApplyOp(bw, bwInputs...)
	if err != nil {
		return nil, err
	}
	grads := make(G.Nodes, len(inputs))
	off := 0
	for i := first; i < len(inputs); i++ {
		s := inputs[i].Shape()
		sec := &sectionOp{op: newOp(fmt.Sprintf("gradSection%d", off), s.Clone(), flat.Shape().Clone()), off: off}
		if grads[i], err = G.ApplyOp(sec, flat); err != nil {
			return nil, err
		}
		off += s.TotalSize()
	}
	return grads, nil
}

// paramsSize is the total size of nodes.
func paramsSize(nodes G.Nodes) int {
	n := 0
	for _, x := range nodes {
		n += x.Shape().TotalSize()
	}
	return n
}

func shapeSize(s tensor.Shape) int { return s.TotalSize() }

// splitParams cuts flat into one slice per shape.
func splitParams(flat []float32, shapes [][]int) [][]float32 {
	out := make([][]float32, len(shapes))
	for i, s := range shapes {
		n := tensor.Shape(s).TotalSize()
		out[i], flat = flat[:n], flat[n:]
	}
	return out
}

// ValueOp is the value head at inference, as one Op: input the trunk's
// output, output (B, 1) tanh(relu(v fc1.w + fc1.b) fc2.w + fc2.b), v
// being the value convolution's planes through ReLU, flattened
// plane-major, with the weights of the engine's Net. The convolution runs
// square-major (kernel.Head.ForwardSquares: each board row of the trunk's
// output read in place, as the policy head's), its few planes then
// gathered plane-major for fc1. As gorgonia's nodes the fully connected
// layers alone would be fourteen nodes (broadcasts, the ReLU as a product
// with a comparison, reshapes), each allocating its value on every run.
// Training runs the convolution in HeadOp and the layers in ValueLossOp.
type ValueOp struct {
	op
	w *Net
	// squares is the convolution's output, square-major (B x 36 x
	// Stride(planes)); planes the same plane-major (B x planes*36);
	// hidden fc1's (B x fc1.Stride()).
	squares, planes, hidden []float32
}

func NewValueOp(w *Net, batch int) *ValueOp {
	d := w.dims
	return &ValueOp{
		op:      newOp("fusedValue", tensor.Shape{batch, 1}, tensor.Shape{batch, kernel.PaddedSide, kernel.PaddedSide, w.stride}),
		w:       w,
		squares: make([]float32, batch*env.NumSquares*kernel.Stride(d.ValuePlanes)),
		planes:  make([]float32, batch*d.ValuePlanes*env.NumSquares),
		hidden:  make([]float32, batch*kernel.Stride(d.ValueHidden)),
	}
}

func (op *ValueOp) Do(vals ...G.Value) (G.Value, error) { return op.doRows(op.in[0][0], vals...) }

func (op *ValueOp) doRows(rows int, vals ...G.Value) (G.Value, error) {
	in, err := op.inputs(vals)
	if err != nil {
		return nil, err
	}
	op.w.value.ForwardSquares(rows, in[0], op.w.stride, op.squares)
	planes, ld := op.w.dims.ValuePlanes, kernel.Stride(op.w.dims.ValuePlanes)
	for b := range rows {
		src := op.squares[b*env.NumSquares*ld:][:env.NumSquares*ld]
		dst := op.planes[b*planes*env.NumSquares:][:planes*env.NumSquares]
		for s := range env.NumSquares {
			for q, v := range src[s*ld : s*ld+planes] {
				dst[q*env.NumSquares+s] = v
			}
		}
	}
	valueFC(rows, op.planes, &op.w.fc1, op.w.fc2, op.hidden, op.out.Float32s())
	return op.out, nil
}
