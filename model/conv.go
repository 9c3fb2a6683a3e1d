package model

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/kernel"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// packedNet is the fused graph's copy of a network's convolution weights.
// An engine owns one, repacked whenever it copies new weights, and its
// fused ops read it during runs (one at a time: the heads hold scratch
// space).
type packedNet struct {
	cfg Config
	// stride is the trunk's channel stride (kernel.Stride).
	stride        int
	trunk         []kernel.Conv // stem, then two per block
	policy, value kernel.Head
}

// load packs the weights w (in Config.specs order).
func (p *packedNet) load(cfg Config, w [][]float32) {
	ch := cfg.Channels
	p.cfg = cfg
	p.stride = kernel.Stride(ch)
	if len(p.trunk) != 1+2*cfg.Blocks {
		p.trunk = make([]kernel.Conv, 1+2*cfg.Blocks)
	}
	p.trunk[0].Pack(w[0], ch, env.NumPlanes, w[1])
	for i := range 2 * cfg.Blocks {
		p.trunk[1+i].Pack(w[2+2*i], ch, ch, w[3+2*i])
	}
	h := 2 + 4*cfg.Blocks
	p.policy.Pack(w[h], policyPlanes, ch, w[h+1], false)
	p.value.Pack(w[h+2], cfg.ValuePlanes, ch, w[h+3], true)
}

// fusedOp is what the trunk and head ops share: the gorgonia Op methods
// that do not depend on the computation. Their outputs are buffers the op
// owns and rewrites each run: the tape machine forgets every value at
// Reset, so an op allocating its result would make garbage on every run.
// This is safe because the ops' consumers (the heads, a matrix product,
// the graph's output copies) never write their inputs.
type fusedOp struct {
	name  string
	w     *packedNet
	batch int
	in    tensor.Shape
	out   *tensor.Dense
}

func (op *fusedOp) Arity() int { return 1 }

func (op *fusedOp) Type() hm.Type {
	return hm.NewFnType(G.TensorType{Dims: len(op.in), Of: tensor.Float32}, G.TensorType{Dims: op.out.Dims(), Of: tensor.Float32})
}

func (op *fusedOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("%s: %d inputs, want 1", op.name, len(in))
	}
	if s, ok := in[0].(tensor.Shape); !ok || !s.Eq(op.in) {
		return nil, fmt.Errorf("%s: input shape %v, want %v", op.name, in[0], op.in)
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

// input checks a run's input value and returns its data.
func (op *fusedOp) input(vals []G.Value) ([]float32, error) {
	if len(vals) != 1 {
		return nil, fmt.Errorf("%s: %d inputs, want 1", op.name, len(vals))
	}
	t, ok := vals[0].(tensor.Tensor)
	if !ok || !t.Shape().Eq(op.in) {
		return nil, fmt.Errorf("%s: input %v, want a tensor of shape %v", op.name, vals[0].Shape(), op.in)
	}
	x, ok := t.Data().([]float32)
	if !ok {
		return nil, fmt.Errorf("%s: input is %v, want float32", op.name, t.Dtype())
	}
	return x, nil
}

// trunkOp is the stem and the residual tower as one Op: input the
// observations (B, planes, 6, 6), output the last block's activations (B,
// 8, 8, stride), channel-last with a border (which its consumers do not
// read).
type trunkOp struct {
	fusedOp
	x    []float32 // the observations, channel-last with a zero border
	h, t []float32 // a block's input and its middle activations
}

func newTrunkOp(w *packedNet, batch int) *trunkOp {
	n := batch * kernel.PaddedPixels
	return &trunkOp{
		fusedOp: fusedOp{
			name: "fusedTrunk", w: w, batch: batch,
			in:  tensor.Shape{batch, env.NumPlanes, boardSide, boardSide},
			out: tensor.New(tensor.WithShape(batch, kernel.PaddedSide, kernel.PaddedSide, w.stride), tensor.Of(tensor.Float32)),
		},
		x: make([]float32, n*env.NumPlanes),
		h: make([]float32, n*w.stride),
		t: make([]float32, n*w.stride),
	}
}

func (op *trunkOp) Do(vals ...G.Value) (G.Value, error) {
	obs, err := op.input(vals)
	if err != nil {
		return nil, err
	}
	kernel.Pad(op.x, obs, op.batch, env.NumPlanes)
	out := op.out.Float32s()
	w, bs, stride := op.w, op.batch, op.w.stride
	if w.cfg.Blocks == 0 {
		w.trunk[0].Forward(bs, op.x, env.NumPlanes, out, stride, nil)
		return op.out, nil
	}
	w.trunk[0].Forward(bs, op.x, env.NumPlanes, op.h, stride, nil)
	for i := range w.cfg.Blocks {
		w.trunk[1+2*i].Forward(bs, op.h, stride, op.t, stride, nil)
		dst := op.h // the output overwrites the residual tile by tile
		if i == w.cfg.Blocks-1 {
			dst = out
		}
		w.trunk[2+2*i].Forward(bs, op.t, stride, dst, stride, op.h)
	}
	return op.out, nil
}

// headOp is a head's 1x1 convolution (kernel.Head) of the trunk's output
// into planes of 6x6, flattened plane-major (NCHW) per position: the
// policy's logits, or the value head's planes.
type headOp struct {
	fusedOp
	p *kernel.Head
}

func newHeadOp(name string, w *packedNet, batch int, p *kernel.Head) *headOp {
	return &headOp{
		fusedOp: fusedOp{
			name: name, w: w, batch: batch,
			in:  tensor.Shape{batch, kernel.PaddedSide, kernel.PaddedSide, w.stride},
			out: tensor.New(tensor.WithShape(batch, p.Planes()*env.NumSquares), tensor.Of(tensor.Float32)),
		},
		p: p,
	}
}

func (op *headOp) Do(vals ...G.Value) (G.Value, error) {
	h, err := op.input(vals)
	if err != nil {
		return nil, err
	}
	op.p.Forward(op.batch, h, op.w.stride, op.out.Float32s())
	return op.out, nil
}
