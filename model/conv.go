package model

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	"github.com/deathstacks/deathstacks/env"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The fused inference graph keeps the trunk's activations channel-last
// with a zero border: per position, 8x8 pixels (the 6x6 board and a ring
// of zeros) of a fixed number of channels. A 3x3 convolution is then an
// implicit matrix product read straight from its input: the kernel's six
// rows are the six pixels of one board row, and each of the nine taps is
// the same rows shifted by a constant offset, so the border supplies the
// zero padding and no im2col copy or transpose is needed. Bias, residual
// add and ReLU happen in the kernel's epilogue.
const (
	paddedSide   = boardSide + 2
	paddedPixels = paddedSide * paddedSide
)

// tapDelta is each 3x3 tap's pixel offset in the padded layout, in the
// order (dy, dx) of the stored weights' (kh, kw).
var tapDelta = [9]int{-paddedSide - 1, -paddedSide, -paddedSide + 1, -1, 0, 1, paddedSide - 1, paddedSide, paddedSide + 1}

// rowStart is the padded pixel index of board square (y, 0) of position b.
func rowStart(b, y int) int { return b*paddedPixels + (y+1)*paddedSide + 1 }

// packedConv is one convolution's weights in the kernel's layout: for each
// panel of nr output channels, for each tap, for each input channel, nr
// weights; output channels past out are zero.
type packedConv struct {
	in, out, taps int
	w             []float32
	// bias is per output channel, padded to whole panels; nil when the
	// bias is not per channel (the policy's is per action).
	bias []float32
}

func (p *packedConv) panels() int { return (p.out + nr - 1) / nr }

// pack converts a convolution's stored weights w (out, in, k, k) and
// per-channel bias (nil for none) into p, reusing p's arrays.
func (p *packedConv) pack(w []float32, out, in, k int, bias []float32) {
	p.in, p.out, p.taps = in, out, k*k
	p.w = grow(p.w, p.panels()*p.taps*in*nr)
	for jr := range p.panels() {
		for t := range p.taps {
			for c := range in {
				row := p.w[((jr*p.taps+t)*in+c)*nr:][:nr]
				for j := range row {
					o := jr*nr + j
					row[j] = 0
					if o < out {
						row[j] = w[(o*in+c)*p.taps+t]
					}
				}
			}
		}
	}
	if bias == nil {
		p.bias = nil
		return
	}
	p.bias = grow(p.bias, p.panels()*nr)
	clear(p.bias)
	copy(p.bias, bias[:out])
}

// packedNet is the fused graph's copy of a network's convolution weights.
// An engine owns one, repacked whenever it copies new weights, and its
// fused ops read it during runs.
type packedNet struct {
	cfg Config
	// stride is the trunk's channels rounded up to whole panels: the
	// activations' channel stride, padding channels always zero.
	stride        int
	trunk         []packedConv // stem, then two per block
	policy, value packedHead
}

// load packs the weights w (in Config.specs order).
func (p *packedNet) load(cfg Config, w [][]float32) {
	ch := cfg.Channels
	p.cfg = cfg
	p.stride = (ch + nr - 1) / nr * nr
	if len(p.trunk) != 1+2*cfg.Blocks {
		p.trunk = make([]packedConv, 1+2*cfg.Blocks)
	}
	p.trunk[0].pack(w[0], ch, env.NumPlanes, 3, w[1])
	for i := range 2 * cfg.Blocks {
		p.trunk[1+i].pack(w[2+2*i], ch, ch, 3, w[3+2*i])
	}
	h := 2 + 4*cfg.Blocks
	p.policy.pack(w[h], policyPlanes, ch, w[h+1], false)
	p.value.pack(w[h+2], cfg.ValuePlanes, ch, w[h+3], true)
}

// packedHead is a head's 1x1 convolution: per position, the planes x 36
// outputs are w (planes x in, the stored layout, rows zero-padded to a
// multiple of mr) times the position's trunk output (in x 36), plus bias
// (planes x 36), through ReLU if relu. Computed this way round, the
// kernel's tile is mr planes of nr squares, stored straight into the
// plane-major output.
type packedHead struct {
	planes, in int
	w, bias    []float32
	relu       bool
}

// pack sets the head from stored weights w (planes, in, 1, 1) and a bias
// per plane (bias of length planes) or per output (planes x 36).
func (p *packedHead) pack(w []float32, planes, in int, bias []float32, relu bool) {
	p.planes, p.in, p.relu = planes, in, relu
	rows := (planes + mr - 1) / mr * mr
	p.w = grow(p.w, rows*in)
	clear(p.w[copy(p.w, w[:planes*in]):])
	p.bias = grow(p.bias, planes*env.NumSquares)
	if len(bias) == len(p.bias) {
		copy(p.bias, bias)
		return
	}
	for q := range planes {
		for s := range env.NumSquares {
			p.bias[q*env.NumSquares+s] = bias[q]
		}
	}
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
	n := batch * paddedPixels
	return &trunkOp{
		fusedOp: fusedOp{
			name: "fusedTrunk", w: w, batch: batch,
			in:  tensor.Shape{batch, env.NumPlanes, boardSide, boardSide},
			out: tensor.New(tensor.WithShape(batch, paddedSide, paddedSide, w.stride), tensor.Of(tensor.Float32)),
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
	const planes = env.NumPlanes
	for b := range op.batch {
		for c := range planes {
			src := obs[(b*planes+c)*env.NumSquares:][:env.NumSquares]
			for y := range boardSide {
				base := rowStart(b, y) * planes
				for x, v := range src[y*boardSide : (y+1)*boardSide] {
					op.x[base+x*planes+c] = v
				}
			}
		}
	}
	out := op.out.Float32s()
	w := op.w
	if w.cfg.Blocks == 0 {
		op.conv(&w.trunk[0], op.x, planes, out, nil)
		return op.out, nil
	}
	op.conv(&w.trunk[0], op.x, planes, op.h, nil)
	for i := range w.cfg.Blocks {
		op.conv(&w.trunk[1+2*i], op.h, w.stride, op.t, nil)
		dst := op.h // the output overwrites the residual tile by tile
		if i == w.cfg.Blocks-1 {
			dst = out
		}
		op.conv(&w.trunk[2+2*i], op.t, w.stride, dst, op.h)
	}
	return op.out, nil
}

// conv is relu(conv3x3(src) + bias [+ res]) into dst, src having channel
// stride inStride and dst and res the trunk's stride. Only the board's
// pixels are written: dst's border stays zero.
func (op *trunkOp) conv(p *packedConv, src []float32, inStride int, dst, res []float32) {
	var offs [9]int
	for t, d := range tapDelta {
		offs[t] = (d + paddedSide + 1) * inStride
	}
	stride := op.w.stride
	panel := p.taps * p.in * nr
	for b := range op.batch {
		for y := range boardSide {
			r := rowStart(b, y)
			a := src[(r-paddedSide-1)*inStride:]
			for jr := range p.panels() {
				o := r*stride + jr*nr
				var rs []float32
				if res != nil {
					rs = res[o:]
				}
				kernel(a, offs[:], p.in, inStride, p.w[jr*panel:(jr+1)*panel], dst[o:], stride, p.bias[jr*nr:], rs, kernelReLU)
			}
		}
	}
}

// headOp is a head's 1x1 convolution (packedHead) of the trunk's output
// into planes of 6x6, flattened plane-major (NCHW) per position: the
// policy's logits, or the value head's planes.
type headOp struct {
	fusedOp
	p *packedHead
	// b is one position's trunk output packed for the kernel: three
	// panels of nr squares (36 and zero padding), in values each.
	b    []float32
	tile [mr * nr]float32
}

// headPanels is the number of nr-square panels covering the board.
const headPanels = (env.NumSquares + nr - 1) / nr

func newHeadOp(name string, w *packedNet, batch int, p *packedHead) *headOp {
	return &headOp{
		fusedOp: fusedOp{
			name: name, w: w, batch: batch,
			in:  tensor.Shape{batch, paddedSide, paddedSide, w.stride},
			out: tensor.New(tensor.WithShape(batch, p.planes*env.NumSquares), tensor.Of(tensor.Float32)),
		},
		p: p,
		b: make([]float32, headPanels*p.in*nr),
	}
}

func (op *headOp) Do(vals ...G.Value) (G.Value, error) {
	h, err := op.input(vals)
	if err != nil {
		return nil, err
	}
	p, stride := op.p, op.w.stride
	out := op.out.Float32s()
	size := p.planes * env.NumSquares
	flags := 0
	if p.relu {
		flags = kernelReLU
	}
	offs := [1]int{0}
	const ld = env.NumSquares
	for b := range op.batch {
		op.packPosition(h[b*paddedPixels*stride:], stride)
		dst := out[b*size : (b+1)*size]
		for r := 0; r < p.planes; r += mr {
			a := p.w[r*p.in : (r+mr)*p.in]
			for jr := range headPanels {
				bp := op.b[jr*p.in*nr : (jr+1)*p.in*nr]
				o := r*ld + jr*nr
				rows, cols := min(mr, p.planes-r), min(nr, ld-jr*nr)
				if rows == mr && cols == nr {
					kernel(a, offs[:], p.in, p.in, bp, dst[o:], ld, nil, p.bias[o:], flags)
					continue
				}
				kernel(a, offs[:], p.in, p.in, bp, op.tile[:], nr, nil, nil, 0)
				for i := range rows {
					for j := range cols {
						v := op.tile[i*nr+j] + p.bias[o+i*ld+j]
						if p.relu {
							v = max(v, 0)
						}
						dst[o+i*ld+j] = v
					}
				}
			}
		}
	}
	return op.out, nil
}

// packPosition packs one position's trunk output h (8x8 pixels of stride
// channels) into op.b: per panel, per channel, nr squares.
func (op *headOp) packPosition(h []float32, stride int) {
	in := op.p.in
	clear(op.b)
	for s := range env.NumSquares {
		px := h[rowStart(0, s/boardSide)*stride+(s%boardSide)*stride:][:in]
		panel := op.b[(s/nr)*in*nr:]
		for c, v := range px {
			panel[c*nr+s%nr] = v
		}
	}
}
