package kernel

import (
	"github.com/deathstacks/deathstacks/env"
	"gonum.org/v1/gonum/blas"
)

// The convolutions keep activations channel-last with a zero border: per
// position, 8x8 pixels (the 6x6 board and a ring of zeros) of a fixed
// number of channels, the stride. A 3x3 convolution is then an implicit
// matrix product read straight from its input: the kernel's six rows are
// the six pixels of one board row, and each of the nine taps is the same
// rows shifted by a constant offset, so the border supplies the zero
// padding and no im2col copy or transpose is needed. Bias, residual add
// and ReLU happen in the kernel's epilogue.
const (
	side = env.BoardSize
	// PaddedSide is the side of a position's padded pixel grid.
	PaddedSide = side + 2
	// paddedPixels is the number of pixels of one padded position.
	paddedPixels = PaddedSide * PaddedSide
)

// tapDelta is each 3x3 tap's pixel offset in the padded layout, in the
// order (dy, dx) of the stored weights' (kh, kw).
var tapDelta = [9]int{-PaddedSide - 1, -PaddedSide, -PaddedSide + 1, -1, 0, 1, PaddedSide - 1, PaddedSide, PaddedSide + 1}

// rowStart is the padded pixel index of board square (y, 0) of position b.
func rowStart(b, y int) int { return b*paddedPixels + (y+1)*PaddedSide + 1 }

// Stride is the channel stride of activations of ch channels: ch rounded
// up to whole panels of the kernel's width, the padding channels zero.
func Stride(ch int) int { return (ch + nr - 1) / nr * nr }

// pad writes batch observations obs, planes planes of 6x6 each (NCHW), into
// dst channel-last with planes channels per pixel. dst must hold
// batch*paddedPixels*planes values; its border is left as it is (zero).
func pad(dst, obs []float32, batch, planes int) {
	for b := range batch {
		for c := range planes {
			src := obs[(b*planes+c)*env.NumSquares:][:env.NumSquares]
			for y := range side {
				base := rowStart(b, y) * planes
				for x, v := range src[y*side : (y+1)*side] {
					dst[base+x*planes+c] = v
				}
			}
		}
	}
}

// conv is one 3x3 convolution's weights in the kernel's layout: for each
// panel of nr output channels, for each tap, for each input channel, nr
// weights; output channels past out are zero.
type conv struct {
	in, out, taps int
	w             []float32
	bias          []float32 // per output channel, padded to whole panels
	// wt is the transposed convolution's weights, for BackwardInput: for
	// each panel of nr input channels, for each tap, for each output
	// channel, nr weights; valid if backward.
	wt       []float32
	backward bool
	// srcT, gp and acc are backwardWeights' scratch: the input
	// channel-major, a block of the gradient packed in panels, and the
	// taps' gradients (tap, input channel, output channel).
	srcT, gp, acc []float32
}

func (p *conv) panels() int { return (p.out + nr - 1) / nr }

// pack sets p from a convolution's stored weights w (out, in, 3, 3) and
// per-channel bias (out values), reusing p's arrays. With backward, it
// also packs the weights that BackwardInput needs.
func (p *conv) pack(w []float32, out, in int, bias []float32, backward bool) {
	p.in, p.out, p.taps = in, out, len(tapDelta)
	p.w = packConv(p.w, w, out, in, p.taps, false)
	p.bias = grow(p.bias, p.panels()*nr)
	clear(p.bias)
	copy(p.bias, bias[:out])
	p.backward = backward
	if backward {
		p.wt = packConv(p.wt, w, out, in, p.taps, true)
	}
}

// packConv packs convolution weights w (out, in, taps) into dst: per
// panel of nr output channels, per tap, per input channel, nr weights; or
// transposed, with the roles of input and output channels swapped.
// Channels past the last panel's end are zero.
func packConv(dst, w []float32, out, in, taps int, transposed bool) []float32 {
	cols, depth := out, in
	if transposed {
		cols, depth = in, out
	}
	panels := (cols + nr - 1) / nr
	dst = grow(dst, panels*taps*depth*nr)
	for jr := range panels {
		for t := range taps {
			for d := range depth {
				row := dst[((jr*taps+t)*depth+d)*nr:][:nr]
				for j := range row {
					row[j] = 0
					if jr*nr+j >= cols {
						continue
					}
					o, c := jr*nr+j, d
					if transposed {
						o, c = d, jr*nr+j
					}
					row[j] = w[(o*in+c)*taps+t]
				}
			}
		}
	}
	return dst
}

// forward computes dst = relu(conv3x3(src) + bias [+ res]) for batch
// positions, src having channel stride inStride and dst and res (nil for
// none) stride. Only the board's pixels are written: dst's border stays
// as it is (zero). res may be dst itself: each tile is read before it is
// overwritten.
func (p *conv) forward(batch int, src []float32, inStride int, dst []float32, stride int, res []float32) {
	var offs [9]int
	for t, d := range tapDelta {
		offs[t] = (d + PaddedSide + 1) * inStride
	}
	panel := p.taps * p.in * nr
	for b := range batch {
		for y := range side {
			r := rowStart(b, y)
			a := src[(r-PaddedSide-1)*inStride:]
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

// backwardInput computes dst = conv3x3 transposed (g) [+ res]: the
// gradient of the convolution's input from g, the gradient of its output
// before bias and ReLU (stride channels, zero border). dst and res (nil
// for none) have channel stride Stride(in); res may be dst itself. Only
// the board's pixels are written. p must be packed with backward.
func (p *conv) backwardInput(batch int, g []float32, stride int, dst, res []float32) {
	if !p.backward {
		panic("kernel: Conv.BackwardInput on weights packed without backward")
	}
	// Output pixel q gets g[q - delta_t] through tap t.
	var offs [9]int
	for t, d := range tapDelta {
		offs[t] = (-d + PaddedSide + 1) * stride
	}
	inStride := Stride(p.in)
	panel := p.taps * p.out * nr
	for b := range batch {
		for y := range side {
			r := rowStart(b, y)
			a := g[(r-PaddedSide-1)*stride:]
			for jr := range inStride / nr {
				o := r*inStride + jr*nr
				var rs []float32
				if res != nil {
					rs = res[o:]
				}
				kernel(a, offs[:], p.out, stride, p.wt[jr*panel:(jr+1)*panel], dst[o:], inStride, nil, rs, 0)
			}
		}
	}
}

// backwardWeights computes the gradients of the weights (dw, the stored
// layout (out, in, 3, 3)) and of the bias (db, out values) from the
// convolution's input src (channel stride inStride, zero border) and g,
// the gradient of its output before bias and ReLU (stride channels, a
// multiple of the kernel's width, zero border). It overwrites dw and db.
//
// Each tap's gradient is a matrix product over pixels, dw_t[c][o] = sum
// over p of src[p+delta_t][c] * g[p][o]. The sum runs over all padded
// pixels, the border's gradient being zero, so that with src transposed
// once (channel-major) every tap is the same rows read at a constant
// offset, and g is packed once per block of pixels for all nine taps.
func (p *conv) backwardWeights(batch int, src []float32, inStride int, g []float32, stride int, dw, db []float32) {
	pixels := batch * paddedPixels
	rows := (p.in + mr - 1) / mr * mr
	p.srcT = grow(p.srcT, rows*pixels)
	clear(p.srcT[p.in*pixels:])
	for px := range pixels {
		for c, v := range src[px*inStride : px*inStride+p.in] {
			p.srcT[c*pixels+px] = v
		}
	}
	panels := p.panels()
	ld := panels * nr
	p.acc = grow(p.acc, p.taps*rows*ld)
	// The range keeps every tap's shifted read inside the position's
	// pixels.
	lo, hi := PaddedSide+1, pixels-PaddedSide-1
	offs := [1]int{}
	for p0 := lo; p0 < hi; p0 += backwardKC {
		kc := min(backwardKC, hi-p0)
		p.gp = grow(p.gp, panels*kc*nr)
		for jr := range panels {
			for q := range kc {
				copy(p.gp[(jr*kc+q)*nr:][:nr], g[(p0+q)*stride+jr*nr:])
			}
		}
		flags := kernelAccumulate
		if p0 == lo {
			flags = 0
		}
		for t, d := range tapDelta {
			for r := 0; r < rows; r += mr {
				offs[0] = r*pixels + p0 + d
				for jr := range panels {
					kernel(p.srcT, offs[:], kc, pixels, p.gp[jr*kc*nr:(jr+1)*kc*nr], p.acc[(t*rows+r)*ld+jr*nr:], ld, nil, nil, flags)
				}
			}
		}
	}
	for t := range p.taps {
		for c := range p.in {
			for o, v := range p.acc[(t*rows+c)*ld:][:p.out] {
				dw[(o*p.in+c)*p.taps+t] = v
			}
		}
	}
	clear(db[:p.out])
	for b := range batch {
		for y := range side {
			r := rowStart(b, y)
			for x := range side {
				for o, v := range g[(r+x)*stride:][:p.out] {
					db[o] += v
				}
			}
		}
	}
}

// backwardKC is the number of pixels of one block of backwardWeights: a
// panel of g (16 KB) stays in L1 while the kernel walks the rows.
const backwardKC = 256

// reluBackward zeroes g where the ReLU's output y is not positive: g
// becomes the gradient before the ReLU.
func reluBackward(g, y []float32) {
	for i, v := range y[:len(g)] {
		if v <= 0 {
			g[i] = 0
		}
	}
}

// Head is a head's 1x1 convolution: per position, the planes x 36
// outputs are w (planes x in, the stored layout, rows zero-padded to a
// multiple of mr) times the position's trunk output (in x 36), plus bias
// (planes x 36), through ReLU if relu. Computed this way round, the
// kernel's tile is mr planes of nr squares, stored straight into the
// plane-major output. A Head holds scratch space of its runs: one
// goroutine at a time may run it.
//
// Packed for squares, it also computes the transpose, square-major
// (ForwardSquares): there the kernel's tile is one board row of six
// squares by nr planes, read in place from the trunk's output like a
// convolution's, so a position costs no packing and no tile is partly
// padding.
type Head struct {
	planes, in int
	w, bias    []float32
	relu       bool
	// b is one position's trunk output packed for the kernel: headPanels
	// panels of nr squares (36 and zero padding), in values each.
	b    []float32
	tile [mr * nr]float32
	// wp and biasSq are ForwardSquares' weights, per panel of nr planes,
	// per input channel, nr weights, and its bias square-major (36 x
	// squareStride); set if packed for squares.
	wp, biasSq []float32
	squares    bool
	// gt, hc and dhc are Backward's scratch: the output gradient
	// square-major (batch*36 x planes), the trunk output compact (batch*36
	// x in) and its gradient.
	gt, hc, dhc []float32
}

// headPanels is the number of nr-square panels covering the board.
const headPanels = (env.NumSquares + nr - 1) / nr

// Pack sets p from stored weights w (planes, in, 1, 1) and a bias per
// plane (planes values) or per output (planes x 36). With squares it also
// packs for ForwardSquares.
func (p *Head) Pack(w []float32, planes, in int, bias []float32, relu, squares bool) {
	p.planes, p.in, p.relu, p.squares = planes, in, relu, squares
	rows := (planes + mr - 1) / mr * mr
	p.w = grow(p.w, rows*in)
	clear(p.w[copy(p.w, w[:planes*in]):])
	p.b = grow(p.b, headPanels*in*nr)
	clear(p.b) // the squares past the board stay zero
	p.bias = grow(p.bias, planes*env.NumSquares)
	if len(bias) == len(p.bias) {
		copy(p.bias, bias)
	} else {
		for q := range planes {
			for s := range env.NumSquares {
				p.bias[q*env.NumSquares+s] = bias[q]
			}
		}
	}
	if !squares {
		return
	}
	// A 1x1 convolution is a 3x3 one's centre tap alone.
	p.wp = packConv(p.wp, w, planes, in, 1, false)
	ld := p.squareStride()
	p.biasSq = grow(p.biasSq, env.NumSquares*ld)
	clear(p.biasSq)
	for q := range planes {
		for s := range env.NumSquares {
			p.biasSq[s*ld+q] = p.bias[q*env.NumSquares+s]
		}
	}
}

// Squares reports whether p is packed for ForwardSquares.
func (p *Head) Squares() bool { return p.squares }

// squareStride is the number of values per square of ForwardSquares'
// output: the planes rounded up to whole panels of the kernel's width,
// the padding planes zero.
func (p *Head) squareStride() int { return (p.planes + nr - 1) / nr * nr }

// ForwardSquares computes what Forward does, square-major: out holds
// batch x 36 x Stride(planes) values, out[(b*36 + s)*Stride(planes) + q]
// being Forward's out[(b*planes + q)*36 + s]. p must be packed for
// squares.
func (p *Head) ForwardSquares(batch int, h []float32, stride int, out []float32) {
	if !p.squares {
		panic("kernel: Head.ForwardSquares on weights packed without squares")
	}
	flags := 0
	if p.relu {
		flags = kernelReLU
	}
	ld := p.squareStride()
	panel := p.in * nr
	offs := [1]int{0}
	for b := range batch {
		for y := range side {
			a := h[rowStart(b, y)*stride:]
			o := (b*env.NumSquares + y*side) * ld
			bias := p.biasSq[y*side*ld:]
			for jr := range ld / nr {
				kernel(a, offs[:], p.in, stride, p.wp[jr*panel:(jr+1)*panel], out[o+jr*nr:], ld, nil, bias[jr*nr:], flags)
			}
		}
	}
}

// Forward computes the head of batch positions of trunk output h
// (channel-last, padded, channel stride stride) into out (batch x planes x
// 36, plane-major per position).
func (p *Head) Forward(batch int, h []float32, stride int, out []float32) {
	size := p.planes * env.NumSquares
	flags := 0
	if p.relu {
		flags = kernelReLU
	}
	offs := [1]int{0}
	const ld = env.NumSquares
	for b := range batch {
		p.packPosition(h[b*paddedPixels*stride:], stride)
		dst := out[b*size : (b+1)*size]
		for r := 0; r < p.planes; r += mr {
			a := p.w[r*p.in : (r+mr)*p.in]
			for jr := range headPanels {
				bp := p.b[jr*p.in*nr : (jr+1)*p.in*nr]
				o := r*ld + jr*nr
				rows, cols := min(mr, p.planes-r), min(nr, ld-jr*nr)
				if rows == mr && cols == nr {
					kernel(a, offs[:], p.in, p.in, bp, dst[o:], ld, nil, p.bias[o:], flags)
					continue
				}
				kernel(a, offs[:], p.in, p.in, bp, p.tile[:], nr, nil, nil, 0)
				for i := range rows {
					for j := range cols {
						v := p.tile[i*nr+j] + p.bias[o+i*ld+j]
						if p.relu {
							v = max(v, 0)
						}
						dst[o+i*ld+j] = v
					}
				}
			}
		}
	}
}

// packPosition packs one position's trunk output h (8x8 pixels of stride
// channels) into p.b: per panel, per channel, nr squares; the squares
// past the board keep the zeros of Pack. Each panel row gathers one
// channel of nr squares and is written contiguously: scattering each
// square's channels across the rows instead took about half again as
// long (measured in the profile of BenchmarkForwardCompare).
func (p *Head) packPosition(h []float32, stride int) {
	for jr := range headPanels {
		squares := squareOffsets[jr*nr : min((jr+1)*nr, env.NumSquares)]
		panel := p.b[jr*p.in*nr : (jr+1)*p.in*nr]
		for c := range p.in {
			row := panel[c*nr : c*nr+len(squares)]
			for j, off := range squares {
				row[j] = h[off*stride+c]
			}
		}
	}
}

// squareOffsets is each board square's pixel index in a padded position.
var squareOffsets = func() (o [env.NumSquares]int) {
	for s := range o {
		o[s] = rowStart(0, s/side) + s%side
	}
	return o
}()

// Backward computes, for batch positions, the gradients of the head's
// input (dh, padded like h, channel stride stride; its border is left as
// it is, zero), of its weights (dw, planes x in) and of its bias (db, of
// the length Pack was given) from the input h, the output out that
// Forward computed from it and the output's gradient gout. It overwrites
// dh's board pixels, dw and db.
func (p *Head) Backward(batch int, h []float32, stride int, out, gout, dh, dw, db []float32) {
	const sq = env.NumSquares
	rows, size := batch*sq, p.planes*sq
	p.gt = grow(p.gt, rows*p.planes)
	p.hc = grow(p.hc, rows*p.in)
	p.dhc = grow(p.dhc, rows*p.in)
	for b := range batch {
		for q := range p.planes {
			o := b*size + q*sq
			for s, g := range gout[o : o+sq] {
				if p.relu && out[o+s] <= 0 {
					g = 0
				}
				p.gt[(b*sq+s)*p.planes+q] = g
			}
		}
		for s := range sq {
			copy(p.hc[(b*sq+s)*p.in:][:p.in], h[(rowStart(b, s/side)+s%side)*stride:])
		}
	}
	BLAS{}.Sgemm(blas.Trans, blas.NoTrans, p.planes, p.in, rows, 1, p.gt, p.planes, p.hc, p.in, 0, dw, p.in)
	BLAS{}.Sgemm(blas.NoTrans, blas.NoTrans, rows, p.in, p.planes, 1, p.gt, p.planes, p.w, p.in, 0, p.dhc, p.in)
	for b := range batch {
		for s := range sq {
			px := dh[(rowStart(b, s/side)+s%side)*stride:][:stride]
			clear(px[copy(px, p.dhc[(b*sq+s)*p.in:][:p.in]):])
		}
	}
	perOutput := len(db) == size
	clear(db)
	for r := range rows {
		for q, g := range p.gt[r*p.planes : (r+1)*p.planes] {
			if perOutput {
				db[q*sq+r%sq] += g
			} else {
				db[q] += g
			}
		}
	}
}
