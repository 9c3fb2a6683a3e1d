package kernel

import (
	"math"

	"github.com/deathstacks/deathstacks/env"
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

// inputStride is the channel stride of the observations of planes
// planes: whole blocks of 8 channels (the stem's 21 planes as 24, the
// padding channels zero), which the weights' gradient transposes in AVX.
func inputStride(planes int) int { return (planes + 7) / 8 * 8 }

// pad writes batch observations obs, planes planes of 6x6 each (NCHW), into
// dst channel-last with channel stride stride. dst must hold
// batch*paddedPixels*stride values; its border and padding channels are
// left as they are (zero). It writes square by square, each square's
// channels in a row: twice as fast as plane by plane, whose stores are a
// stride apart.
func pad(dst, obs []float32, batch, planes, stride int) {
	for b := range batch {
		src := obs[b*planes*env.NumSquares:][:planes*env.NumSquares]
		for s, px := range squareOffsets {
			row := dst[(b*paddedPixels+px)*stride:][:planes]
			for c := range row {
				row[c] = src[c*env.NumSquares+s]
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
	// srcT, gp, acc, db, px and tapPx are backwardWeights' scratch: a
	// block's neighbourhoods transposed, its gradient in panels, the
	// weights' gradient ((tap, input channel), output channel), the
	// bias's (whole panels), the block's padded pixel indices and those
	// shifted by the first tap's offset.
	srcT, gp, acc, db []float32
	px, tapPx         []int
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
	clear(dst) // the columns past cols
	// In the stored order, each weight to its place: column col's panel
	// and place in it, its depth d and tap t.
	for o := range out {
		for c := range in {
			col, d := o, c
			if transposed {
				col, d = c, o
			}
			base := (col/nr*taps*depth+d)*nr + col%nr
			for t, v := range w[(o*in+c)*taps:][:taps] {
				dst[base+t*depth*nr] = v
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
	// A position's six board rows in one call.
	down := rowTiles{n: side, aStep: PaddedSide * inStride, cStep: PaddedSide * stride}
	for b := range batch {
		r := rowStart(b, 0)
		a := src[(r-PaddedSide-1)*inStride:]
		o := r * stride
		kernelPanels(a, offs[:], p.in, inStride, p.w, panel, p.panels(), dst[o:], stride, p.bias, suffix(res, o), kernelReLU, down)
	}
}

// backwardInput computes dst = conv3x3 transposed (g) [+ res]: the
// gradient of the convolution's input from g, the gradient of its output
// before bias and ReLU (stride channels, zero border). dst and res (nil
// for none) have channel stride Stride(in); res may be dst itself. Unless
// relu is nil, it then zeroes dst where relu (the output of the ReLU that
// made the input) is not positive: the gradient before that ReLU, each
// position masked as soon as it is computed, while it is in L1. Only the
// board's pixels are written (and with relu the border between a
// position's rows, zero, with zeros). p must be packed with backward.
func (p *conv) backwardInput(batch int, g []float32, stride int, dst, res, relu []float32) {
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
	// A position's six board rows in one call, then masked together: the
	// border pixels between the rows are zero and stay so.
	down := rowTiles{n: side, aStep: PaddedSide * stride, cStep: PaddedSide * inStride}
	for b := range batch {
		r := rowStart(b, 0)
		a := g[(r-PaddedSide-1)*stride:]
		o := r * inStride
		kernelPanels(a, offs[:], p.out, stride, p.wt, panel, inStride/nr, dst[o:], inStride, nil, suffix(res, o), 0, down)
		if relu != nil {
			n := ((side-1)*PaddedSide + side) * inStride
			reluBackward(dst[o:o+n], dst[o:o+n], relu[o:o+n])
		}
	}
}

// backwardWeights computes the gradients of the weights (dw, the stored
// layout (out, in, 3, 3)) and of the bias (db, out values) from the
// convolution's input src (channel stride inStride, zero border) and g,
// the gradient of its output before bias and ReLU (stride channels, zero
// border). It overwrites dw and db.
//
// The gradient is one matrix product over the board's pixels (not the
// border's, whose gradient is zero): dw (taps*in x out) = the pixels' 3x3
// neighbourhoods transposed (taps*in x pixels, im2col^T) times g (pixels
// x out). This way round the kernel's rows are (tap, input channel)
// pairs, 9*in of them, a whole number of tiles for an even in (32
// output channels as the rows would take six tiles of mr, a ninth of
// them padding), and no run of channels shorter than a panel is copied
// (the stem's few input planes). It runs in blocks of backwardKC pixels:
// each block's neighbourhoods are transposed once, tap by tap (a row of
// backwardKC values per (tap, channel), in L2), g is gathered in panels
// of nr output channels (in L1), and the kernel accumulates every tile
// over the blocks, both panels of a tile of rows in turn while its rows
// are in L1.
func (p *conv) backwardWeights(batch int, src []float32, inStride int, g []float32, stride int, dw, db []float32) {
	pixels := batch * env.NumSquares
	cols := p.taps * p.in
	rows := (cols + mr - 1) / mr * mr
	panels := p.panels()
	ld := panels * nr
	p.acc = grow(p.acc, rows*ld)
	// The channels transposed a tap: whole blocks of 8 where the stride
	// has them (the AVX form's; the stem's 21 planes as 24, inputStride).
	// The rows past a tap's in are overwritten by the next tap's; the
	// last tap's, and the rows up to a whole tile, are multiplied into
	// rows of acc that are not read.
	chans := min((p.in+7)/8*8, inStride)
	p.srcT = grow(p.srcT, (rows+8)*backwardKC)
	p.gp = grow(p.gp, panels*backwardKC*nr)
	p.db = grow(p.db, ld)
	clear(p.db)
	offs := [1]int{}
	for q0 := 0; q0 < pixels; q0 += backwardKC {
		kc := min(backwardKC, pixels-q0)
		// The block's pixels, and the same less the first tap's offset
		// (all are at least 0).
		p.px, p.tapPx = grow(p.px, kc), grow(p.tapPx, kc)
		for q := range kc {
			p.px[q] = boardPixel(q0 + q)
			p.tapPx[q] = p.px[q] + tapDelta[0]
		}
		// The neighbourhoods transposed: tap t's rows are the block's
		// pixels shifted by its offset, written in the taps' order.
		for t, d := range tapDelta[:p.taps] {
			transposeRows(p.srcT[t*p.in*backwardKC:], src[(d-tapDelta[0])*inStride:], p.tapPx, inStride, chans, nil)
		}
		// g in panels, and the bias's gradient: the sum of g over the
		// pixels, each channel a running sum in the pixels' order.
		px := newPixels(p.px)
		for jr := range panels {
			gatherRows(p.gp[jr*backwardKC*nr:], g, px, stride, jr*nr, p.db[jr*nr:])
		}
		flags := kernelAccumulate
		if q0 == 0 {
			flags = 0
		}
		down := rowTiles{n: rows / mr, aStep: mr * backwardKC, cStep: mr * ld}
		kernelPanels(p.srcT, offs[:], kc, backwardKC, p.gp, backwardKC*nr, panels, p.acc, ld, nil, nil, flags, down)
	}
	copy(db[:p.out], p.db)
	// dw in order: the reads from acc (in L1) are the strided ones.
	for o := range p.out {
		for c := range p.in {
			out := dw[(o*p.in+c)*p.taps:][:p.taps]
			for t := range out {
				out[t] = p.acc[(t*p.in+c)*ld+o]
			}
		}
	}
}

// boardPixel is the padded pixel index of the q-th board square of a
// batch, counted position by position.
func boardPixel(q int) int {
	return q/env.NumSquares*paddedPixels + squareOffsets[q%env.NumSquares]
}

// backwardKC is the number of pixels of one block of the weights'
// gradients: a panel of nr columns of the block (6 KB) stays in L1 while
// the kernel walks the rows.
const backwardKC = 96

// reluBackward sets dst to g where the ReLU's output y is positive (not
// y <= 0; a NaN counts as positive) and to zero elsewhere: g becomes the
// gradient before the ReLU. dst may be g itself. The AVX form takes 8
// values at once.
func reluBackward(dst, g, y []float32) {
	g, y = g[:len(dst)], y[:len(dst)]
	n := 0
	if fastKernels {
		n = len(dst) / 8 * 8
		reluBackwardAsm(dst[:n], g[:n], y[:n])
	}
	reluBackwardGo(dst[n:], g[n:], y[n:])
}

// reluBackwardGo is the portable form of reluBackward.
func reluBackwardGo(dst, g, y []float32) {
	g, y = g[:len(dst)], y[:len(dst)]
	// A select of the bits, which compiles to a conditional move: half of
	// the outputs are not positive, at random, and a branch on each
	// mispredicted that often.
	for i, v := range y {
		b := math.Float32bits(g[i])
		if v <= 0 {
			b = 0
		}
		dst[i] = math.Float32frombits(b)
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
	// panels of nr squares (36, then copies of the last), in values each; ht
	// holds its channels' rows of 36 squares, backwardKC values apart
	// (transposeRows' layout).
	b, ht []float32
	tile  [mr * nr]float32
	// tileBias is the bias of Forward's tiles, mr x nr each, per tile of
	// planes, per panel of squares.
	tileBias []float32
	// wp and biasSq are ForwardSquares' weights, per panel of nr planes,
	// per input channel, nr weights, and its bias square-major (36 x
	// squareStride); set if packed for squares.
	wp, biasSq []float32
	squares    bool
	// Backward's scratch: the gradient before the ReLU (gm), the trunk
	// output packed (hp), the taps' offsets (offs), a block's pixels
	// (px), the weights' gradient (acc), the weights transposed (wt), a
	// block's trunk output gathered in panels (gb) and the bias's
	// gradient square-major (dt).
	gm, hp, acc, wt, gb, dt []float32
	offs, px                []int
}

// headPanels is the number of nr-square panels covering the board,
// fullHeadPanels the number wholly on it.
const (
	headPanels     = (env.NumSquares + nr - 1) / nr
	fullHeadPanels = env.NumSquares / nr
)

// Pack sets p from stored weights w (planes, in, 1, 1) and a bias per
// plane (planes values) or per output (planes x 36). With squares it also
// packs for ForwardSquares.
func (p *Head) Pack(w []float32, planes, in int, bias []float32, relu, squares bool) {
	p.planes, p.in, p.relu, p.squares = planes, in, relu, squares
	rows := (planes + mr - 1) / mr * mr
	p.w = grow(p.w, rows*in)
	clear(p.w[copy(p.w, w[:planes*in]):])
	p.b = grow(p.b, headPanels*in*nr)
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
	// The bias of every tile, per tile of mr planes and panel of nr
	// squares, zero past the planes and the board.
	p.tileBias = grow(p.tileBias, rows/mr*headPanels*mr*nr)
	clear(p.tileBias)
	for q := range planes {
		for s := range env.NumSquares {
			p.tileBias[((q/mr*headPanels+s/nr)*mr+q%mr)*nr+s%nr] = p.bias[q*env.NumSquares+s]
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
	// A position's six board rows in one call.
	down := rowTiles{n: side, aStep: PaddedSide * stride, cStep: side * ld}
	for b := range batch {
		a := h[rowStart(b, 0)*stride:]
		o := b * env.NumSquares * ld
		kernelPanels(a, offs[:], p.in, stride, p.wp, panel, ld/nr, out[o:], ld, nil, p.biasSq, flags, down)
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
			rows, jr := min(mr, p.planes-r), 0
			if rows == mr {
				// The tiles wholly on the board, stored in place.
				kernelPanels(a, offs[:], p.in, p.in, p.b, p.in*nr, fullHeadPanels, dst[r*ld:], ld, nil, p.bias[r*ld:], flags, oneRow)
				jr = fullHeadPanels
			}
			for ; jr < headPanels; jr++ {
				bp := p.b[jr*p.in*nr : (jr+1)*p.in*nr]
				o := r*ld + jr*nr
				cols := min(nr, ld-jr*nr)
				// A tile partly past the planes or the board: computed
				// whole, with its bias (the same additions) and ReLU, into
				// p.tile, then its rows' part on the board copied out.
				kernel(a, offs[:], p.in, p.in, bp, p.tile[:], nr, nil, p.tileBias[(r/mr*headPanels+jr)*mr*nr:], flags)
				for i := range rows {
					copy(dst[o+i*ld:o+i*ld+cols], p.tile[i*nr:])
				}
			}
		}
	}
}

// packPosition packs one position's trunk output h (8x8 pixels of stride
// channels) into p.b: per panel, per channel, nr squares (past the
// board, copies of the last square).
func (p *Head) packPosition(h []float32, stride int) {
	// The squares' channels transposed (in AVX, 8 squares by 8 channels
	// at a time), then each panel's rows of nr squares copied out.
	p.ht = grow(p.ht, p.in*backwardKC)
	transposeRows(p.ht, h, headPixels[:], stride, p.in, nil)
	for jr := range headPanels {
		panel := p.b[jr*p.in*nr : (jr+1)*p.in*nr]
		for c := range p.in {
			// Through a local array: vector moves, not memmove.
			*(*[nr]float32)(panel[c*nr:]) = *(*[nr]float32)(p.ht[c*backwardKC+jr*nr:])
		}
	}
}

// headPixels is the pixels of packPosition's panels: each board square's,
// then the last square's again up to whole panels (whole blocks of 8 for
// the transpose), whose products fall in columns that Forward does not
// store.
var headPixels = func() (px [headPanels * nr]int) {
	for s := range px {
		px[s] = squareOffsets[min(s, env.NumSquares-1)]
	}
	return px
}()

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
//
// Both products run on the kernel without transposing the gradient: the
// weights' is the sum over positions of the gradient (planes x 36, as it
// comes) times the position's trunk output (36 x in), each position one
// of the kernel's taps; the input's, per board row, the gradient (6
// squares x planes) times the weights transposed (planes x in), stored
// straight into dh.
func (p *Head) Backward(batch int, h []float32, stride int, out, gout, dh, dw, db []float32) {
	const sq = env.NumSquares
	size := p.planes * sq
	rows := (p.planes + mr - 1) / mr * mr
	gsize := rows * sq
	// g is the gradient before the ReLU, rows planes a position (the
	// padding planes zero): gout itself if it is that already.
	g := gout
	if p.relu || rows != p.planes {
		p.gm = grow(p.gm, batch*gsize)
		for b := range batch {
			dst := p.gm[b*gsize : (b+1)*gsize]
			for i, v := range gout[b*size : (b+1)*size] {
				if p.relu && out[b*size+i] <= 0 {
					v = 0
				}
				dst[i] = v
			}
			clear(dst[size:])
		}
		g = p.gm
	}
	perOutput := len(db) == size
	clear(db)
	for b := range batch {
		for q := range p.planes {
			row := g[b*gsize+q*sq:][:sq]
			if perOutput {
				for s, v := range row {
					db[q*sq+s] += v
				}
				continue
			}
			var sum float32
			for _, v := range row {
				sum += v
			}
			db[q] += sum
		}
	}
	p.backwardWeights(batch, h, stride, g, gsize, dw)
	p.backwardInput(batch, g, gsize, dh, stride)
}

// backwardWeights is Backward's weight gradient from g, the output's
// gradient before the ReLU with gsize values a position.
func (p *Head) backwardWeights(batch int, h []float32, stride int, g []float32, gsize int, dw []float32) {
	const sq = env.NumSquares
	rows := gsize / sq
	panels := Stride(p.in) / nr
	ld := panels * nr
	n := batch * sq
	// The trunk output, a row of nr channels per square and panel.
	p.hp = grow(p.hp, panels*n*nr)
	for jr := range panels {
		for q := range n {
			row := *(*[nr]float32)(h[boardPixel(q)*stride+jr*nr:])
			*(*[nr]float32)(p.hp[(jr*n+q)*nr:]) = row
		}
	}
	p.offs = grow(p.offs, batch)
	p.acc = grow(p.acc, rows*ld)
	for b := range batch {
		p.offs[b] = b * gsize
	}
	down := rowTiles{n: rows / mr, aStep: mr * sq, cStep: mr * ld}
	kernelPanels(g, p.offs, sq, sq, p.hp, n*nr, panels, p.acc, ld, nil, nil, 0, down)
	for q := range p.planes {
		copy(dw[q*p.in:(q+1)*p.in], p.acc[q*ld:])
	}
}

// backwardInput is Backward's input gradient from g, the output's
// gradient before the ReLU with gsize values a position, into dh (channel
// stride stride; its padding channels are written zero).
//
// As BackwardSquares' (a 1x1 convolution's transpose is a 3x3 one's
// centre tap alone), per board row of six squares, by the weights
// transposed; g is plane-major, so each plane is one of the kernel's taps,
// of one value, its six squares one apart.
func (p *Head) backwardInput(batch int, g []float32, gsize int, dh []float32, stride int) {
	p.wt = packConv(p.wt, p.w, p.planes, p.in, 1, true)
	panel := p.planes * nr
	p.offs = grow(p.offs, p.planes)
	for q := range p.offs {
		p.offs[q] = q * env.NumSquares
	}
	// A position's six board rows in one call.
	down := rowTiles{n: side, aStep: side, cStep: PaddedSide * stride}
	for b := range batch {
		kernelPanels(g[b*gsize:], p.offs, 1, 1, p.wt, panel, Stride(p.in)/nr, dh[rowStart(b, 0)*stride:], stride, nil, nil, 0, down)
	}
}

// BackwardSquares is Backward for the output of ForwardSquares: gout and
// out square-major (batch x 36 x Stride(planes)). p must be packed for
// squares.
//
// The input's gradient is computed as a transposed convolution's: a
// board row of six squares of gout by a panel of the weights, read in
// place and stored straight into dh. The weights' gradient (planes x
// in) is gout transposed (planes x squares), read in place, times the
// trunk output (squares x in), gathered in panels of nr channels, in
// blocks of backwardKC squares.
func (p *Head) BackwardSquares(batch int, h []float32, stride int, out, gout, dh, dw, db []float32) {
	if !p.squares {
		panic("kernel: Head.BackwardSquares on weights packed without squares")
	}
	const sq = env.NumSquares
	ld := p.squareStride()
	n := batch * sq
	g := gout
	if p.relu {
		p.gm = grow(p.gm, n*ld)
		reluBackward(p.gm, gout, out)
		g = p.gm
	}
	// The bias's gradient, summed square-major first.
	p.dt = grow(p.dt, sq*ld)
	clear(p.dt)
	for q := range n {
		addTo(p.dt[q%sq*ld:][:p.planes], g[q*ld:])
	}
	clear(db)
	perOutput := len(db) == p.planes*sq
	for s := range sq {
		for j, v := range p.dt[s*ld : s*ld+p.planes] {
			if perOutput {
				db[j*sq+s] = v
			} else {
				db[j] += v
			}
		}
	}
	p.backwardInputSquares(batch, g, dh, stride)
	p.backwardWeightsSquares(batch, h, stride, g, dw)
}

// backwardInputSquares is BackwardSquares' input gradient from g, the
// output's gradient before the ReLU, into dh (channel stride stride; its
// padding channels are written zero).
func (p *Head) backwardInputSquares(batch int, g, dh []float32, stride int) {
	// A 1x1 convolution's transpose is a 3x3 one's centre tap alone.
	p.wt = packConv(p.wt, p.w, p.planes, p.in, 1, true)
	ld := p.squareStride()
	panel := p.planes * nr
	offs := [1]int{0}
	// A position's six board rows in one call.
	down := rowTiles{n: side, aStep: side * ld, cStep: PaddedSide * stride}
	for b := range batch {
		a := g[b*env.NumSquares*ld:]
		kernelPanels(a, offs[:], p.planes, ld, p.wt, panel, Stride(p.in)/nr, dh[rowStart(b, 0)*stride:], stride, nil, nil, 0, down)
	}
}

// backwardWeightsSquares is BackwardSquares' weight gradient from g, the
// output's gradient before the ReLU: the weights' gradient (planes x in)
// is g transposed (planes x squares) times the trunk output (squares x
// in), in blocks of backwardKC squares. g is square-major, so each square
// is one of the kernel's taps, of one value, its planes one apart: g is
// read in place, and only the trunk output is gathered, in panels of nr
// channels. A tile of planes that would read past a square's row (planes
// not a whole number of tiles and their row ending soon after them) is
// moved back to end with the row; its rows have their own place in acc.
func (p *Head) backwardWeightsSquares(batch int, h []float32, stride int, g, dw []float32) {
	ld := p.squareStride()
	n := batch * env.NumSquares
	rows := (p.planes + mr - 1) / mr * mr
	last := rows - mr // the last tile's first row in acc
	lastPlane := min(last, ld-mr)
	panels := Stride(p.in) / nr
	ldc := panels * nr
	p.acc = grow(p.acc, rows*ldc)
	p.gb = grow(p.gb, panels*backwardKC*nr)
	for q0 := 0; q0 < n; q0 += backwardKC {
		kc := min(backwardKC, n-q0)
		p.px, p.offs = grow(p.px, kc), grow(p.offs, kc)
		for q := range kc {
			p.px[q] = boardPixel(q0 + q)
			p.offs[q] = (q0 + q) * ld
		}
		px := newPixels(p.px)
		for jr := range panels {
			gatherRows(p.gb[jr*kc*nr:], h, px, stride, jr*nr, nil)
		}
		flags := kernelAccumulate
		if q0 == 0 {
			flags = 0
		}
		// The tiles before the last in one call, then the last from its
		// plane.
		before := rowTiles{n: last / mr, aStep: mr, cStep: mr * ldc}
		kernelPanels(g, p.offs, 1, 1, p.gb, kc*nr, panels, p.acc, ldc, nil, nil, flags, before)
		kernelPanels(g[lastPlane:], p.offs, 1, 1, p.gb, kc*nr, panels, p.acc[last*ldc:], ldc, nil, nil, flags, oneRow)
	}
	for q := range p.planes {
		r := q
		if q >= last {
			r = last + q - lastPlane
		}
		copy(dw[q*p.in:(q+1)*p.in], p.acc[r*ldc:])
	}
}
