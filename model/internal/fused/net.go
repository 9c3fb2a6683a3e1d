package fused

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

// boardSide is the board's width and height in squares.
const boardSide = 6

// policyPlanes is the number of 6x6 logit planes of the policy head, one
// per (direction, count) pair.
const policyPlanes = env.NumActions / env.NumSquares

// Dims is what the ops need of a network's configuration.
type Dims struct {
	Channels, Blocks, ValuePlanes, ValueHidden int
	// Shapes are the learnables' shapes in the order the weights come in:
	// the trunk's (TrunkParams of them), then the policy head's weights and
	// bias, the value head's, and its fully connected layers' fc1.w, fc1.b,
	// fc2.w, fc2.b.
	Shapes [][]int
}

// TrunkParams is the number of the trunk's learnables of a network of
// blocks residual blocks.
func TrunkParams(blocks int) int { return 2 + 4*blocks }

// Net is the fused graph's copy of a network's convolution weights. An
// engine owns one, repacked whenever it copies new weights, and its fused
// ops read it during runs (one at a time: the heads hold scratch space). A
// training graph owns another, which its ops repack from their inputs on
// every run.
type Net struct {
	dims Dims
	// backward packs the convolutions for training's backward pass too.
	backward bool
	// stride is the trunk's channel stride (kernel.Stride).
	stride        int
	trunk         kernel.Tower
	policy, value kernel.Head
	// fc1 is the value head's first fully connected layer, packed; fc2
	// the second's weights and bias themselves, not a copy. The inference
	// graph's ValueOp reads them.
	fc1 kernel.Dense
	fc2 [][]float32
}

// NewNet returns an empty Net of d, packed for the backward pass too if
// backward (a training graph's, which its ops fill on every run).
func NewNet(d Dims, backward bool) *Net {
	return &Net{dims: d, backward: backward, stride: kernel.Stride(d.Channels)}
}

// Load packs the weights w (in Dims.Shapes order).
func (p *Net) Load(w [][]float32) {
	ch := p.dims.Channels
	p.loadTrunk(w)
	h := TrunkParams(p.dims.Blocks)
	p.policy.Pack(w[h], policyPlanes, ch, w[h+1], false, true)
	p.value.Pack(w[h+2], p.dims.ValuePlanes, ch, w[h+3], true, true)
	p.fc1.Pack(w[h+4], p.dims.ValuePlanes*env.NumSquares, p.dims.ValueHidden, w[h+5], true)
	p.fc2 = w[h+6 : h+8]
}

// loadTrunk packs the trunk's convolutions from w (Dims.Shapes order).
func (p *Net) loadTrunk(w [][]float32) {
	p.trunk.Pack(w, env.NumPlanes, p.dims.Channels, p.dims.Blocks, p.backward)
}

// op is what the fused ops share: the gorgonia Op methods that do not
// depend on the computation. Their outputs are buffers the op owns and
// rewrites each run (a gradient's section, a view of its gradient op's):
// an op allocating its result would make garbage on every run. This is
// safe because the ops' consumers (the fused ops, gorgonia's arithmetic,
// the callers reading the outputs and gradients) do not write them during
// a run (the model package's trainer averages the gradients in place
// after it, before the next run rewrites them).
type op struct {
	name string
	in   []tensor.Shape
	out  *tensor.Dense
	data [][]float32 // inputs' scratch
}

func newOp(name string, out tensor.Shape, in ...tensor.Shape) op {
	return op{name: name, in: in, out: tensor.New(tensor.WithShape(out...), tensor.Of(tensor.Float32))}
}

// gradOp is a backward pass: an op whose output fill computes from its
// inputs and the state its forward op kept in the same run.
type gradOp struct {
	op
	fill func(in [][]float32, out []float32)
}

func newGradOp(name string, out tensor.Shape, in []tensor.Shape, fill func(in [][]float32, out []float32)) *gradOp {
	return &gradOp{op: newOp(name, out, in...), fill: fill}
}

func (op *gradOp) Do(vals ...G.Value) (G.Value, error) {
	in, err := op.inputs(vals)
	if err != nil {
		return nil, err
	}
	op.fill(in, op.out.Float32s())
	return op.out, nil
}

// Out is the op's output buffer, rewritten by every run.
func (op *op) Out() *tensor.Dense { return op.out }

func (op *op) Arity() int { return len(op.in) }

func (op *op) Type() hm.Type {
	ts := make([]hm.Type, 0, len(op.in)+1)
	for _, s := range op.in {
		ts = append(ts, G.TensorType{Dims: len(s), Of: tensor.Float32})
	}
	return hm.NewFnType(append(ts, G.TensorType{Dims: op.out.Dims(), Of: tensor.Float32})...)
}

func (op *op) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
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

func (op *op) ReturnsPtr() bool      { return false }
func (op *op) CallsExtern() bool     { return false }
func (op *op) OverwritesInput() int  { return -1 }
func (op *op) String() string        { return op.name }
func (op *op) WriteHash(h hash.Hash) { fmt.Fprintf(h, "%s(%p)%v", op.name, op, op.in) }

func (op *op) Hashcode() uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

// inputs checks a run's input values and returns their data, in a slice
// the op reuses on its next run.
func (op *op) inputs(vals []G.Value) ([][]float32, error) {
	if len(vals) != len(op.in) {
		return nil, fmt.Errorf("%s: %d inputs, want %d", op.name, len(vals), len(op.in))
	}
	if len(op.data) != len(vals) {
		op.data = make([][]float32, len(vals))
	}
	for i, v := range vals {
		t, ok := v.(tensor.Tensor)
		if !ok || !t.Shape().Eq(op.in[i]) {
			return nil, fmt.Errorf("%s: input %d is %v, want a tensor of shape %v", op.name, i, v.Shape(), op.in[i])
		}
		if t.Dtype() != tensor.Float32 {
			return nil, fmt.Errorf("%s: input %d is %v, want float32", op.name, i, t.Dtype())
		}
		// A dense tensor's slice without Data's conversion to an
		// interface, which allocates.
		if d, dense := t.(*tensor.Dense); dense {
			op.data[i] = d.Float32s()
		} else if op.data[i], ok = t.Data().([]float32); !ok {
			return nil, fmt.Errorf("%s: input %d holds %T, want float32", op.name, i, t.Data())
		}
	}
	return op.data, nil
}

// diffWRT marks the inputs from first on as differentiable if train.
func diffWRT(inputs, first int, train bool) []bool {
	d := make([]bool, inputs)
	for i := first; i < inputs; i++ {
		d[i] = train
	}
	return d
}
