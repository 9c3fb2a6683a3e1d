package model

import (
	"fmt"
	"hash"
	"hash/fnv"
	"math"

	"github.com/chewxy/hm"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/kernel"
	"gonum.org/v1/gonum/blas"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// packedNet is the fused graph's copy of a network's convolution weights.
// An engine owns one, repacked whenever it copies new weights, and its
// fused ops read it during runs (one at a time: the heads hold scratch
// space). A training graph owns another, which its ops repack from their
// inputs on every run.
type packedNet struct {
	cfg Config
	// backward packs the convolutions for training's backward pass too.
	backward bool
	// stride is the trunk's channel stride (kernel.Stride).
	stride        int
	trunk         kernel.Tower
	policy, value kernel.Head
	// fc is the value head's fully connected layers (value.fc1.w, .fc1.b,
	// .fc2.w, .fc2.b): the weights themselves, not a copy, for the
	// inference graph's valueFCOp.
	fc [][]float32
}

// load packs the weights w (in Config.specs order).
func (p *packedNet) load(cfg Config, w [][]float32) {
	ch := cfg.Channels
	p.cfg = cfg
	p.stride = kernel.Stride(ch)
	p.loadTrunk(w)
	h := trunkParams(cfg)
	p.policy.Pack(w[h], policyPlanes, ch, w[h+1], false, !p.backward)
	p.value.Pack(w[h+2], cfg.ValuePlanes, ch, w[h+3], true, false)
	p.fc = w[h+4 : h+8]
}

// loadTrunk packs the trunk's convolutions from w (Config.specs order).
func (p *packedNet) loadTrunk(w [][]float32) {
	p.trunk.Pack(w, env.NumPlanes, p.cfg.Channels, p.cfg.Blocks, p.backward)
}

// fusedOp is what the fused ops share: the gorgonia Op methods that do
// not depend on the computation. Their outputs are buffers the op owns and
// rewrites each run: the tape machine forgets every value at Reset, so an
// op allocating its result would make garbage on every run. This is safe
// because the ops' consumers (the fused ops, gorgonia's arithmetic, the
// graph's output copies, the dual values that gradients are added to)
// never write their inputs.
type fusedOp struct {
	name string
	in   []tensor.Shape
	out  *tensor.Dense
}

func newFusedOp(name string, out tensor.Shape, in ...tensor.Shape) fusedOp {
	return fusedOp{name: name, in: in, out: tensor.New(tensor.WithShape(out...), tensor.Of(tensor.Float32))}
}

func (op *fusedOp) Arity() int { return len(op.in) }

func (op *fusedOp) Type() hm.Type {
	ts := make([]hm.Type, 0, len(op.in)+1)
	for _, s := range op.in {
		ts = append(ts, G.TensorType{Dims: len(s), Of: tensor.Float32})
	}
	return hm.NewFnType(append(ts, G.TensorType{Dims: op.out.Dims(), Of: tensor.Float32})...)
}

func (op *fusedOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if len(in) != len(op.in) {
		return nil, fmt.Errorf("%s: %d inputs, want %d", op.name, len(in), len(op.in))
	}
	for i, d := range in {
		if s, ok := d.(tensor.Shape); !ok || !s.Eq(op.in[i]) {
			return nil, fmt.Errorf("%s: input %d has shape %v, want %v", op.name, i, d, op.in[i])
		}
	}
	return op.out.Shape().Clone(), nil
}

func (op *fusedOp) ReturnsPtr() bool      { return false }
func (op *fusedOp) CallsExtern() bool     { return false }
func (op *fusedOp) OverwritesInput() int  { return -1 }
func (op *fusedOp) String() string        { return op.name }
func (op *fusedOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "%s(%p)%v", op.name, op, op.in) }

func (op *fusedOp) Hashcode() uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

// inputs checks a run's input values and returns their data.
func (op *fusedOp) inputs(vals []G.Value) ([][]float32, error) {
	if len(vals) != len(op.in) {
		return nil, fmt.Errorf("%s: %d inputs, want %d", op.name, len(vals), len(op.in))
	}
	data := make([][]float32, len(vals))
	for i, v := range vals {
		t, ok := v.(tensor.Tensor)
		if !ok || !t.Shape().Eq(op.in[i]) {
			return nil, fmt.Errorf("%s: input %d is %v, want a tensor of shape %v", op.name, i, v.Shape(), op.in[i])
		}
		if data[i], ok = t.Data().([]float32); !ok {
			return nil, fmt.Errorf("%s: input %d is %v, want float32", op.name, i, t.Dtype())
		}
	}
	return data, nil
}

// trunkOp is the stem and the residual tower as one Op (kernel.Tower):
// input the observations (B, planes, 6, 6), output the last block's
// activations (B, 8, 8, stride), channel-last with a zero border.
//
// At inference the weights come from the engine's packedNet. For training
// (train) the op also takes the trunk's learnables as inputs, packs them
// on every run, keeps every layer's activations for the backward pass, and
// is differentiable (SymDiff) through trunkGradOp.
type trunkOp struct {
	fusedOp
	w     *packedNet
	run   *kernel.TowerRun
	train bool
}

func newTrunkOp(w *packedNet, batch int, train bool) *trunkOp {
	cfg := w.cfg
	in := []tensor.Shape{{batch, env.NumPlanes, boardSide, boardSide}}
	if train {
		for _, s := range cfg.specs()[:trunkParams(cfg)] {
			in = append(in, s.shape)
		}
	}
	run := kernel.NewTowerRun(batch, env.NumPlanes, cfg.Channels, cfg.Blocks, train)
	op := &trunkOp{
		fusedOp: newFusedOp("fusedTrunk", tensor.Shape{batch, kernel.PaddedSide, kernel.PaddedSide, w.stride}, in...),
		w:       w, run: run, train: train,
	}
	op.out = tensor.New(tensor.WithShape(op.out.Shape()...), tensor.WithBacking(run.Output()))
	return op
}

// trunkParams is the number of the trunk's learnables (Config.specs).
func trunkParams(cfg Config) int { return 2 + 4*cfg.Blocks }

func (op *trunkOp) Do(vals ...G.Value) (G.Value, error) { return op.doRows(op.in[0][0], vals...) }

func (op *trunkOp) doRows(rows int, vals ...G.Value) (G.Value, error) {
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
func (op *trunkOp) DiffWRT(inputs int) []bool { return diffWRT(inputs, 1, op.train) }

// diffWRT marks the inputs from first on as differentiable if train.
func diffWRT(inputs, first int, train bool) []bool {
	d := make([]bool, inputs)
	for i := first; i < inputs; i++ {
		d[i] = train
	}
	return d
}

// SymDiff returns the learnables' gradients: sections of trunkGradOp's
// output, which runs the whole backward pass of the tower at once.
func (op *trunkOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if !op.train {
		return nil, fmt.Errorf("%s: an inference op has no gradient", op.name)
	}
	bw := &trunkGradOp{
		fusedOp: newFusedOp("fusedTrunkGrad", tensor.Shape{paramsSize(inputs[1:])}, op.out.Shape(), op.out.Shape()),
		fwd:     op,
	}
	return sections(bw, inputs, 1, output, grad)
}

// trunkGradOp is the trunk's backward pass: inputs the trunk's output
// (which orders it after the forward op) and its gradient, output the
// gradients of the trunk's learnables, flat in Config.specs order. It
// reads the activations its forward op kept in the same run.
type trunkGradOp struct {
	fusedOp
	fwd *trunkOp
}

func (op *trunkGradOp) Do(vals ...G.Value) (G.Value, error) {
	in, err := op.inputs(vals)
	if err != nil {
		return nil, err
	}
	f := op.fwd
	grads := splitParams(op.out.Float32s(), f.w.cfg.specs()[:trunkParams(f.w.cfg)])
	f.run.Backward(&f.w.trunk, in[1], grads)
	return op.out, nil
}

// headOp is a head's 1x1 convolution (kernel.Head) of the trunk's output
// into planes of 6x6, flattened plane-major (NCHW) per position: the
// policy's logits, or the value head's planes; or, if the head is packed
// for squares (the inference graph's policy), square-major: the logits of
// each square's planes together (see batchOutput). For training (train)
// it also takes the head's weights and bias as inputs, packs them on every
// run and is differentiable through headGradOp.
type headOp struct {
	fusedOp
	p           *kernel.Head
	batch       int
	stride      int
	relu, train bool
}

// newHeadOp returns an op running the head p of w on batch positions,
// planes output planes through ReLU if relu. With train, its weights and
// bias are inputs of shapes ws and bs.
func newHeadOp(name string, w *packedNet, batch int, p *kernel.Head, planes int, relu, train bool, ws, bs []int) *headOp {
	in := []tensor.Shape{{batch, kernel.PaddedSide, kernel.PaddedSide, w.stride}}
	if train {
		in = append(in, ws, bs)
	}
	return &headOp{
		fusedOp: newFusedOp(name, tensor.Shape{batch, planes * env.NumSquares}, in...),
		p:       p, batch: batch, stride: w.stride, relu: relu, train: train,
	}
}

func (op *headOp) Do(vals ...G.Value) (G.Value, error) { return op.doRows(op.batch, vals...) }

func (op *headOp) doRows(rows int, vals ...G.Value) (G.Value, error) {
	in, err := op.inputs(vals)
	if err != nil {
		return nil, err
	}
	switch {
	case op.train:
		op.p.Pack(in[1], op.in[1][0], op.in[1][1], in[2], op.relu, false)
	case op.p.Squares():
		// The output has room for it: planes is a multiple of the
		// kernel's width (policyPlanes; the tests run it).
		op.p.ForwardSquares(rows, in[0], op.stride, op.out.Float32s())
		return op.out, nil
	}
	op.p.Forward(rows, in[0], op.stride, op.out.Float32s())
	return op.out, nil
}

// DiffWRT is true for every input of a training op.
func (op *headOp) DiffWRT(inputs int) []bool { return diffWRT(inputs, 0, op.train) }

// SymDiff returns the gradients of the trunk's output, the weights and
// the bias: sections of headGradOp's output.
func (op *headOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if !op.train {
		return nil, fmt.Errorf("%s: an inference op has no gradient", op.name)
	}
	bw := &headGradOp{
		fusedOp: newFusedOp(op.name+"Grad", tensor.Shape{paramsSize(inputs)}, op.in[0], op.out.Shape(), op.out.Shape()),
		fwd:     op,
	}
	return sections(bw, inputs, 0, inputs[0], output, grad)
}

// headGradOp is a head's backward pass: inputs the trunk's output, the
// head's output and its gradient; output the gradients of the trunk's
// output, the weights and the bias, flat in that order.
type headGradOp struct {
	fusedOp
	fwd *headOp
}

func (op *headGradOp) Do(vals ...G.Value) (G.Value, error) {
	in, err := op.inputs(vals)
	if err != nil {
		return nil, err
	}
	f := op.fwd
	out := op.out.Float32s()
	nh := shapeSize(f.in[0])
	nw := shapeSize(f.in[1])
	f.p.Backward(f.batch, in[0], f.stride, in[1], in[2], out[:nh], out[nh:nh+nw], out[nh+nw:])
	return op.out, nil
}

// sectionOp is one input's gradient: a copy of a section of a gradient
// op's flat output, shaped like the input.
type sectionOp struct {
	fusedOp
	off int
}

func (op *sectionOp) Do(vals ...G.Value) (G.Value, error) {
	in, err := op.inputs(vals)
	if err != nil {
		return nil, err
	}
	out := op.out.Float32s()
	copy(out, in[0][op.off:op.off+len(out)])
	return op.out, nil
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
		sec := &sectionOp{fusedOp: newFusedOp(fmt.Sprintf("gradSection%d", off), s.Clone(), flat.Shape().Clone()), off: off}
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

// splitParams cuts flat into one slice per spec.
func splitParams(flat []float32, specs []paramSpec) [][]float32 {
	out := make([][]float32, len(specs))
	for i, s := range specs {
		out[i], flat = flat[:s.size()], flat[s.size():]
	}
	return out
}

// valueFCOp is the value head's fully connected layers at inference: input
// the value convolution's planes (B, ValuePlanes*36), output tanh(relu(v
// fc1.w + fc1.b) fc2.w + fc2.b), (B, 1), with the weights of the engine's
// packedNet. As gorgonia's nodes these were fourteen nodes (broadcasts,
// the ReLU as a product with a comparison, reshapes), each allocating its
// value on every run; training keeps them (graph.go's finish) for their
// gradients.
type valueFCOp struct {
	fusedOp
	w      *packedNet
	hidden []float32 // (B, ValueHidden)
}

func newValueFCOp(w *packedNet, batch int) *valueFCOp {
	return &valueFCOp{
		fusedOp: newFusedOp("fusedValueFC", tensor.Shape{batch, 1}, tensor.Shape{batch, w.cfg.ValuePlanes * env.NumSquares}),
		w:       w,
		hidden:  make([]float32, batch*w.cfg.ValueHidden),
	}
}

func (op *valueFCOp) Do(vals ...G.Value) (G.Value, error) { return op.doRows(op.in[0][0], vals...) }

func (op *valueFCOp) doRows(rows int, vals ...G.Value) (G.Value, error) {
	in, err := op.inputs(vals)
	if err != nil {
		return nil, err
	}
	fc, k, hid := op.w.fc, op.in[0][1], op.w.cfg.ValueHidden
	kernel.BLAS{}.Sgemm(blas.NoTrans, blas.NoTrans, rows, hid, k, 1, in[0], k, fc[0], hid, 0, op.hidden, hid)
	out := op.out.Float32s()
	for b := range rows {
		sum := fc[3][0]
		for j, v := range op.hidden[b*hid : (b+1)*hid] {
			sum += max(v+fc[1][j], 0) * fc[2][j]
		}
		out[b] = float32(math.Tanh(float64(sum)))
	}
	return op.out, nil
}
