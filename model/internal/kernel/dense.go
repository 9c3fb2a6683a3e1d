package kernel

// Dense is a fully connected layer packed for the kernels: y = x W + b,
// through ReLU if packed so, for rows of x. Its output rows are Stride(out)
// values apart, the columns past out zero (their weights and bias are), so
// that every tile is stored whole; tiles of six rows are read in place,
// and a last partial tile goes through scratch space. One goroutine at a
// time may run it.
type Dense struct {
	in, out int
	relu    bool
	// w is the weights per panel of nr outputs, per input, nr weights;
	// bias is padded to whole panels.
	w, bias []float32
	// x and y are a partial tile's rows of input and output.
	x, y []float32
}

// Pack sets d from the weights w (in x out, row-major) and the bias (out
// values), reusing d's arrays.
func (d *Dense) Pack(w []float32, in, out int, bias []float32, relu bool) {
	d.in, d.out, d.relu = in, out, relu
	ld := d.Stride()
	d.w = grow(d.w, ld*in)
	clear(d.w)
	for p := range in {
		for j, v := range w[p*out : (p+1)*out] {
			d.w[(j/nr*in+p)*nr+j%nr] = v
		}
	}
	d.bias = grow(d.bias, ld)
	clear(d.bias[copy(d.bias, bias[:out]):])
	d.x = grow(d.x, mr*in)
	d.y = grow(d.y, mr*ld)
}

// Stride is the number of values per row of Forward's output: the
// outputs rounded up to whole panels.
func (d *Dense) Stride() int { return Stride(d.out) }

// Forward computes rows rows of the layer: y's row i (Stride values from
// i*Stride on) from x's (in values from i*in on).
func (d *Dense) Forward(rows int, x, y []float32) {
	if rows <= 0 {
		return
	}
	ld, panels := d.Stride(), d.Stride()/nr
	flags := 0
	if d.relu {
		flags = kernelReLU
	}
	offs := [1]int{0}
	full := rows / mr
	tiles := rowTiles{n: full, aStep: mr * d.in, cStep: mr * ld}
	kernelPanels(x, offs[:], d.in, d.in, d.w, d.in*nr, panels, y, ld, d.bias, nil, flags, tiles)
	if tail := rows - full*mr; tail > 0 {
		lo := full * mr
		clear(d.x[copy(d.x, x[lo*d.in:rows*d.in]):])
		kernelPanels(d.x, offs[:], d.in, d.in, d.w, d.in*nr, panels, d.y, ld, d.bias, nil, flags, oneRow)
		copy(y[lo*ld:rows*ld], d.y)
	}
}
