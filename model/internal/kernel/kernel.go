package kernel

import (
	"fmt"
	"math"
	"os"
)

// The microkernel computes one tile of mr x nr outputs of a matrix product;
// the convolutions and Sgemm are loops around it. 6x16 uses 12 of the
// 16 AVX2 registers for the tile, two for a row of B and two for broadcast
// values of A: the largest tile that fits, and 6 is the board's width, so a
// convolution's tile is one board row.
const (
	mr = 6
	nr = 16
)

// Flags of [kernel].
const (
	kernelAccumulate = 1 << iota // add the tile to c instead of overwriting c
	kernelReLU                   // clamp the result at 0
)

// fastKernels reports whether the AVX2/FMA kernels run. It is fixed at
// start-up: the CPU must have AVX2 and FMA, and DEATHSTACKS_NOASM=1 forces
// the portable Go kernels (CI tests both).
var fastKernels = haveAVX2FMA && os.Getenv("DEATHSTACKS_NOASM") != "1"

// wideKernels reports whether kernelPanels runs two tiles at a time in
// AVX-512 (kernelAVX512), on a CPU that has it unless
// DEATHSTACKS_NOAVX512=1 keeps the AVX2 kernel; the rest of the assembly
// is AVX2 either way. The results are the same bits.
var wideKernels = fastKernels && haveAVX512 && os.Getenv("DEATHSTACKS_NOAVX512") != "1"

// Name names the kernels in use: "avx512" (the microkernel in AVX-512,
// the rest AVX2), "avx2" (AVX2 and FMA assembly) or "go" (portable Go, on
// other CPUs or with DEATHSTACKS_NOASM=1).
func Name() string {
	switch {
	case wideKernels:
		return "avx512"
	case fastKernels:
		return "avx2"
	}
	return "go"
}

// kernel computes the mr x nr tile
//
//	t[i][j] = sum over taps t, p < k of a[offs[t] + i*lda + p] * b[(t*k+p)*nr + j]
//
// then, in this order, adds c[i*ldc+j] (kernelAccumulate), bias[j] (bias
// not nil) and res[i*ldc+j] (res not nil), clamps at 0 (kernelReLU) and
// stores c[i*ldc+j]. The taps let a 3x3 convolution read its input in
// place: each tap is the same rows shifted by one offset. b is packed: nr
// values per (tap, p) row. Out-of-range slices panic, in both forms.
func kernel(a []float32, offs []int, k, lda int, b, c []float32, ldc int, bias, res []float32, flags int) {
	checkKernel(a, offs, k, lda, b, c, ldc, bias, res)
	kernelChecked(a, offs, k, lda, b, c, ldc, bias, res, flags)
}

// kernelChecked is kernel on arguments already checked.
func kernelChecked(a []float32, offs []int, k, lda int, b, c []float32, ldc int, bias, res []float32, flags int) {
	if fastKernels {
		kernelAsm(a, offs, k, lda, b, c, ldc, bias, res, flags)
		return
	}
	kernelGo(a, offs, k, lda, b, c, ldc, bias, res, flags)
}

// kernelPanels computes panels adjacent tiles of kernel, as kernel on
// each in turn: tile j reads its packed b at b[j*bStep:] and writes the
// columns j*nr to (j+1)*nr of c's rows, with bias[j*nr:] and res[j*nr:]
// (nil for none). It does so for each of down's tiles of rows in turn,
// the i-th reading a from i*down.aStep on and writing c and res from
// i*down.cStep on: a convolution's board rows of a position, say, in one
// call. With AVX-512 two tiles at a time share each read of a (a 6x32
// tile in 12 of its 32 registers), with the same bits as two calls of the
// AVX2 kernel, and the assembly walks down the rows itself. Out-of-range
// slices panic, in every form, before anything is written.
func kernelPanels(a []float32, offs []int, k, lda int, b []float32, bStep, panels int, c []float32, ldc int, bias, res []float32, flags int, down rowTiles) {
	if panels <= 0 || down.n <= 0 {
		return
	}
	if bStep < 0 || down.aStep < 0 || down.cStep < 0 {
		panic(fmt.Sprintf("kernel: panels %d values apart, rows %d and %d", bStep, down.aStep, down.cStep))
	}
	// Every tile reads the same taps of a, and the last tile's b, c, bias
	// and res reach the furthest, the last row's furthest of all:
	// checking it checks them all.
	if k <= 0 || len(offs) == 0 {
		a, down.aStep = nil, 0 // an empty product reads no a
	}
	lastC := (down.n-1)*down.cStep + (panels-1)*nr
	checkKernel(suffix(a, (down.n-1)*down.aStep), offs, k, lda, b[(panels-1)*bStep:], c[lastC:], ldc, suffix(bias, (panels-1)*nr), suffix(res, lastC))
	j := 0
	if wideKernels && ldc >= 2*nr {
		for ; j+2 <= panels; j += 2 {
			col := j * nr
			kernelWideAsm(a, offs, k, lda, b[j*bStep:], bStep, c[col:], ldc, suffix(bias, col), suffix(res, col), flags, down)
		}
	}
	for ; j < panels; j++ {
		for i := range down.n {
			ai, col := i*down.aStep, i*down.cStep+j*nr
			kernelChecked(suffix(a, ai), offs, k, lda, b[j*bStep:], c[col:], ldc, suffix(bias, j*nr), suffix(res, col), flags)
		}
	}
}

// rowTiles are kernelPanels' tiles of rows: n of them, each aStep values of
// a and cStep of c after the one before.
type rowTiles struct{ n, aStep, cStep int }

// oneRow is kernelPanels' single tile of rows.
var oneRow = rowTiles{n: 1}

// suffix returns s[i:], or nil for a nil s.
func suffix(s []float32, i int) []float32 {
	if s == nil {
		return nil
	}
	return s[i:]
}

// checkKernel panics unless every index kernel reads or writes is inside
// its slice, so that the assembly cannot touch memory it was not given.
func checkKernel(a []float32, offs []int, k, lda int, b, c []float32, ldc int, bias, res []float32) {
	if k > 0 && len(offs) > 0 {
		for _, off := range offs {
			if off < 0 || off+(mr-1)*lda+k > len(a) {
				panic(fmt.Sprintf("kernel: tap offset %d with lda %d, k %d outside %d values", off, lda, k, len(a)))
			}
		}
		if len(b) < len(offs)*k*nr {
			panic(fmt.Sprintf("kernel: packed b has %d values, want %d", len(b), len(offs)*k*nr))
		}
	}
	last := (mr-1)*ldc + nr
	if ldc < nr || len(c) < last || (res != nil && len(res) < last) || (bias != nil && len(bias) < nr) {
		panic(fmt.Sprintf("kernel: output tile with ldc %d outside c (%d), res (%d) or bias (%d)", ldc, len(c), len(res), len(bias)))
	}
}

// kernelGo is the portable form of kernel.
func kernelGo(a []float32, offs []int, k, lda int, b, c []float32, ldc int, bias, res []float32, flags int) {
	var t [mr][nr]float32
	if k > 0 {
		bi := 0
		for _, off := range offs {
			for p := range k {
				brow := b[bi : bi+nr]
				bi += nr
				for i := range mr {
					av := a[off+i*lda+p]
					row := &t[i]
					for j, bv := range brow {
						row[j] += av * bv
					}
				}
			}
		}
	}
	for i := range mr {
		out := c[i*ldc : i*ldc+nr]
		row := &t[i]
		if flags&kernelAccumulate != 0 {
			for j, v := range out {
				row[j] += v
			}
		}
		if bias != nil {
			for j, v := range bias[:nr] {
				row[j] += v
			}
		}
		if res != nil {
			for j, v := range res[i*ldc : i*ldc+nr] {
				row[j] += v
			}
		}
		if flags&kernelReLU != 0 {
			for j, v := range row {
				row[j] = max(v, 0)
			}
		}
		copy(out, row[:])
	}
}

// pixels are pixel indices and their smallest and largest, found once so
// that each gatherRows of the same pixels checks its bounds in constant
// time.
type pixels struct {
	px     []int
	lo, hi int
}

// newPixels returns px with its range.
func newPixels(px []int) pixels {
	p := pixels{px: px}
	if len(px) > 0 {
		p.lo, p.hi = px[0], px[0]
		for _, q := range px[1:] {
			p.lo, p.hi = min(p.lo, q), max(p.hi, q)
		}
	}
	return p
}

// gatherRows copies, for each q, the nr values src[px[q]*stride+off:] to
// dst[q*nr:]: the rows of a panel gathered from pixels of channel-last
// activations. Unless sum is nil it adds each row to sum's nr values
// too, row by row in order. stride must be positive. Out-of-range slices
// panic, in both forms; the forms agree bit for bit.
func gatherRows(dst, src []float32, px pixels, stride, off int, sum []float32) {
	if len(dst) < len(px.px)*nr || stride <= 0 || (sum != nil && len(sum) < nr) {
		panic(fmt.Sprintf("kernel: gatherRows of %d rows into %d values, stride %d, %d sums", len(px.px), len(dst), stride, len(sum)))
	}
	if len(px.px) > 0 {
		if lo, hi := px.lo*stride+off, px.hi*stride+off; lo < 0 || hi+nr > len(src) {
			panic(fmt.Sprintf("kernel: gatherRows rows at %d to %d outside %d values", lo, hi, len(src)))
		}
	}
	if fastKernels {
		gatherRowsAsm(dst, src, px.px, stride, off, sum)
		return
	}
	gatherRowsGo(dst, src, px.px, stride, off, sum)
}

// gatherRowsGo is the portable form of gatherRows.
func gatherRowsGo(dst, src []float32, px []int, stride, off int, sum []float32) {
	for q, p := range px {
		// Through a local array, which the compiler copies with vector
		// moves (a copy between slices is a call to memmove).
		row := *(*[nr]float32)(src[p*stride+off:])
		*(*[nr]float32)(dst[q*nr:]) = row
		if sum != nil {
			s := (*[nr]float32)(sum)
			for j, v := range row {
				s[j] += v
			}
		}
	}
}

// AllFinite reports whether every value of x is finite: no infinity, no
// NaN. The AVX form takes 8 values at once.
func AllFinite(x []float32) bool {
	n := 0
	if fastKernels {
		n = len(x) / 8 * 8
		if !allFiniteAsm(x[:n]) {
			return false
		}
	}
	return allFiniteGo(x[n:])
}

// allFiniteGo is the portable form of AllFinite: a value is infinite or
// NaN when all its exponent bits are set, and then adding 1 to them
// carries into bit 31.
func allFiniteGo(x []float32) bool {
	var carry uint32
	for _, v := range x {
		carry |= math.Float32bits(v)&0x7f800000 + 1<<23
	}
	return carry&(1<<31) == 0
}

// transposeRows writes the first cols channels of the pixels px of src
// (channel stride stride) transposed into dst, a row of backwardKC values
// a channel: dst[c*backwardKC+q] = src[px[q]*stride+c]. Unless db is nil
// it adds each channel's values to db[c] too, pixel by pixel in order.
// len(px) must not exceed backwardKC. Out-of-range slices panic, in both
// forms; the forms agree bit for bit. The AVX form takes blocks of 8
// pixels by 8 channels.
func transposeRows(dst, src []float32, px []int, stride, cols int, db []float32) {
	if len(px) > backwardKC || (cols > 0 && len(px) > 0 && len(dst) < (cols-1)*backwardKC+len(px)) || (db != nil && len(db) < cols) {
		panic(fmt.Sprintf("kernel: transposeRows of %d pixels, %d channels into %d values, %d sums", len(px), cols, len(dst), len(db)))
	}
	for _, p := range px {
		if i := p * stride; p < 0 || i+cols > len(src) {
			panic(fmt.Sprintf("kernel: transposeRows pixel %d outside %d values", p, len(src)))
		}
	}
	n8, c8 := 0, 0
	if fastKernels {
		n8, c8 = len(px)/8*8, cols/8*8
		transposeRowsAsm(dst, src, px[:n8], stride, c8, db)
	}
	// The rest, each channel's pixels in order after the AVX form's: the
	// pixels past n8 of the first c8 channels, all pixels of the others.
	transposeRowsGo(dst, src, px[n8:], n8, stride, 0, c8, db)
	transposeRowsGo(dst, src, px, 0, stride, c8, cols, db)
}

// transposeRowsGo is the portable form of transposeRows for channels c0
// to c1 of the pixels px, the q0-th on.
func transposeRowsGo(dst, src []float32, px []int, q0, stride, c0, c1 int, db []float32) {
	if c0 >= c1 {
		return
	}
	for q, p := range px {
		row := src[p*stride+c0 : p*stride+c1]
		col := dst[c0*backwardKC+q0+q:]
		for j, v := range row {
			col[j*backwardKC] = v
		}
		if db != nil {
			for j, v := range row {
				db[c0+j] += v
			}
		}
	}
}

// addTo adds src to dst elementwise: dst[i] += src[i] for i < len(dst).
// The AVX form takes 8 values at once; the forms agree bit for bit.
func addTo(dst, src []float32) {
	src = src[:len(dst)]
	n := 0
	if fastKernels {
		n = len(dst) / 8 * 8
		addToAsm(dst[:n], src[:n])
	}
	addToGo(dst[n:], src[n:])
}

// addToGo is the portable form of addTo.
func addToGo(dst, src []float32) {
	for i, v := range src[:len(dst)] {
		dst[i] += v
	}
}
