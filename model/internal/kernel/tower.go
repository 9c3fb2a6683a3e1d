package kernel

// Tower is a residual tower's weights packed for the kernels: a stem
// convolution from the observation's planes to ch channels, then blocks
// residual blocks, each conv3x3-bias-ReLU-conv3x3-bias plus the block's
// input, then ReLU. The activations have channel stride Stride(ch).
type Tower struct {
	planes, ch, blocks int
	conv               []conv // stem, then two per block
	backward           bool
}

// Pack sets t from stored weights w: the stem's weights (ch, planes, 3, 3)
// and bias (ch), then per block the two convolutions' weights (ch, ch, 3,
// 3) and biases (ch). With backward it also packs the blocks' weights for
// the backward pass.
func (t *Tower) Pack(w [][]float32, planes, ch, blocks int, backward bool) {
	t.planes, t.ch, t.blocks, t.backward = planes, ch, blocks, backward
	if len(t.conv) != 1+2*blocks {
		t.conv = make([]conv, 1+2*blocks)
	}
	// The stem's input gradient is never needed: its weights are not
	// packed transposed.
	t.conv[0].pack(w[0], ch, planes, w[1], false)
	for i := range 2 * blocks {
		t.conv[1+i].pack(w[2+2*i], ch, ch, w[3+2*i], backward)
	}
}

// TowerRun is the activations of one batch size's runs of a tower. At
// inference each block's output overwrites its input; for training
// (keep) every layer's activations are kept for Backward.
type TowerRun struct {
	batch, stride int
	keep          bool
	x             []float32   // the observations, channel-last (inputStride) with a zero border
	h             [][]float32 // the stem's and each block's outputs
	t             [][]float32 // each block's middle activations
	g, gt         []float32   // Backward's gradients of a block's output and middle
}

// NewTowerRun returns the activations of batch positions through towers
// of ch channels and blocks blocks on planes input planes.
func NewTowerRun(batch, planes, ch, blocks int, keep bool) *TowerRun {
	n := batch * paddedPixels * Stride(ch)
	r := &TowerRun{batch: batch, stride: Stride(ch), keep: keep, x: make([]float32, batch*paddedPixels*inputStride(planes))}
	nh, nt := 2, 1 // inference: the output and one block's input and middle
	if keep {
		nh, nt = blocks+1, blocks
	}
	for range nh {
		r.h = append(r.h, make([]float32, n))
	}
	for range nt {
		r.t = append(r.t, make([]float32, n))
	}
	if keep {
		r.g, r.gt = make([]float32, n), make([]float32, n)
	}
	return r
}

// Output is the tower's output of the last Forward, positions of 8x8
// pixels (zero border) of Stride(ch) channels. It is the same array every
// run.
func (r *TowerRun) Output() []float32 { return r.h[len(r.h)-1] }

// Forward runs the tower t on the first n <= batch observations of obs
// (batch x planes x 36, NCHW) into the first n positions of Output; the
// others keep what they held. Backward needs a Forward of the whole batch.
func (r *TowerRun) Forward(t *Tower, obs []float32, n int) {
	xs := inputStride(t.planes)
	pad(r.x, obs, n, t.planes, xs)
	bs, stride, out := n, r.stride, r.Output()
	if t.blocks == 0 {
		t.conv[0].forward(bs, r.x, xs, out, stride, nil)
		return
	}
	t.conv[0].forward(bs, r.x, xs, r.h[0], stride, nil)
	for i := range t.blocks {
		src, mid, dst := r.h[0], r.t[0], r.h[0] // inference: in place
		if r.keep {
			src, mid, dst = r.h[i], r.t[i], r.h[i+1]
		}
		if i == t.blocks-1 {
			dst = out
		}
		t.conv[1+2*i].forward(bs, src, stride, mid, stride, nil)
		t.conv[2+2*i].forward(bs, mid, stride, dst, stride, src)
	}
}

// Backward computes the gradients of the tower's weights, in Pack's order
// and shapes, into grads from gout, the gradient of the last Forward's
// output. The run must keep its activations and t be packed with
// backward.
func (r *TowerRun) Backward(t *Tower, gout []float32, grads [][]float32) {
	if !r.keep || !t.backward {
		panic("kernel: TowerRun.Backward without kept activations or backward weights")
	}
	bs, stride, g := r.batch, r.stride, r.g
	r.reluBackward(g, gout, r.Output())
	for i := t.blocks - 1; i >= 0; i-- {
		c1, c2 := &t.conv[1+2*i], &t.conv[2+2*i]
		c2.backwardWeights(bs, r.t[i], stride, g, stride, grads[4+4*i], grads[5+4*i])
		c2.backwardInput(bs, g, stride, r.gt, nil, r.t[i])
		c1.backwardWeights(bs, r.h[i], stride, r.gt, stride, grads[2+4*i], grads[3+4*i])
		// The block's input gets the residual's gradient and the
		// branch's, through the ReLU before it.
		c1.backwardInput(bs, r.gt, stride, g, g, r.h[i])
	}
	t.conv[0].backwardWeights(bs, r.x, inputStride(t.planes), g, stride, grads[0], grads[1])
}

// reluBackward is reluBackward from gout into dst on the board's pixels
// of the run's positions (for the tower's output; the blocks' are masked
// by backwardInput). dst's border stays as it is: zero, as the backward
// pass writes only board pixels.
func (r *TowerRun) reluBackward(dst, gout, y []float32) {
	n := side * r.stride
	for b := range r.batch {
		for row := range side {
			o := rowStart(b, row) * r.stride
			reluBackward(dst[o:o+n], gout[o:o+n], y[o:o+n])
		}
	}
}
