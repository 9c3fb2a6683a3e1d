//go:build amd64

package kernel

import "golang.org/x/sys/cpu"

var haveAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// haveAVX512 reports AVX-512F with the operating system saving its
// registers (x/sys/cpu checks both), beside AVX2 and FMA.
var haveAVX512 = haveAVX2FMA && cpu.X86.HasAVX512F

// kernelAsm runs kernelAVX2 on kernel's arguments, already checked.
func kernelAsm(a []float32, offs []int, k, lda int, b, c []float32, ldc int, bias, res []float32, flags int) {
	ap, offp, bp, biasp, resp := kernelPointers(a, offs, k, b, bias, res)
	kernelAVX2(ap, offp, len(offs), k, lda, bp, &c[0], ldc, biasp, resp, flags)
}

// kernelWideAsm runs kernelAVX512 on kernelPanels' arguments for two
// tiles side by side, down's tiles of rows, already checked.
func kernelWideAsm(a []float32, offs []int, k, lda int, b []float32, bStep int, c []float32, ldc int, bias, res []float32, flags int, down rowTiles) {
	ap, offp, bp, biasp, resp := kernelPointers(a, offs, k, b, bias, res)
	kernelAVX512(ap, offp, len(offs), k, lda, bp, bStep, &c[0], ldc, biasp, resp, flags, down.n, down.aStep, down.cStep)
}

// kernelPointers returns the first elements of the assembly kernels'
// inputs, nil for an empty product's a, offs and b and for a nil bias or
// res.
func kernelPointers(a []float32, offs []int, k int, b, bias, res []float32) (ap *float32, offp *int, bp, biasp, resp *float32) {
	if k > 0 && len(offs) > 0 {
		ap, offp, bp = &a[0], &offs[0], &b[0]
	}
	if bias != nil {
		biasp = &bias[0]
	}
	if res != nil {
		resp = &res[0]
	}
	return ap, offp, bp, biasp, resp
}

// fmaLoop runs n iterations of fmaLoopAVX2; its result only matches
// fmaLoopGo's signature.
func fmaLoop(n int) float32 { fmaLoopAVX2(n); return 0 }

// fmaLoopWide runs n iterations of fmaLoopAVX512, as fmaLoop.
func fmaLoopWide(n int) float32 { fmaLoopAVX512(n); return 0 }

//go:noescape
func kernelAVX2(a *float32, offs *int, ntaps int, k int, lda int, b *float32, c *float32, ldc int, bias *float32, res *float32, flags int)

//go:noescape
func fmaLoopAVX2(n int)

//go:noescape
func kernelAVX512(a *float32, offs *int, ntaps int, k int, lda int, b *float32, bstep int, c *float32, ldc int, bias *float32, res *float32, flags int, tiles int, astep int, cstep int)

//go:noescape
func fmaLoopAVX512(n int)

// gatherRowsAsm runs gatherRowsAVX on gatherRows' arguments, already
// checked.
func gatherRowsAsm(dst, src []float32, px []int, stride, off int, sum []float32) {
	if len(px) == 0 {
		return
	}
	var sp *float32
	if sum != nil {
		sp = &sum[0]
	}
	gatherRowsAVX(&dst[0], &src[0], &px[0], len(px), stride, off, sp)
}

//go:noescape
func gatherRowsAVX(dst *float32, src *float32, px *int, n int, stride int, off int, sum *float32)

// adamAsm runs adamAVX on Adam's arguments, already checked, of a length
// divisible by 8.
func adamAsm(w, g, m, v []float32, c *AdamStep) {
	if len(w) == 0 {
		return
	}
	adamAVX(&w[0], &g[0], &m[0], &v[0], len(w)/8, c)
}

//go:noescape
func adamAVX(w, grad, m, v *float32, blocks int, c *AdamStep)

// reluBackwardAsm runs reluBackwardAVX on reluBackward's arguments, of
// the same length, divisible by 8.
func reluBackwardAsm(dst, g, y []float32) {
	if len(dst) == 0 {
		return
	}
	reluBackwardAVX(&dst[0], &g[0], &y[0], len(dst)/8)
}

//go:noescape
func reluBackwardAVX(dst, grad, y *float32, blocks int)

// allFiniteAsm runs allFiniteAVX on AllFinite's argument, of a length
// divisible by 8.
func allFiniteAsm(x []float32) bool {
	if len(x) == 0 {
		return true
	}
	return allFiniteAVX(&x[0], len(x)/8)
}

//go:noescape
func allFiniteAVX(x *float32, blocks int) bool

// transposeRowsAsm runs transposeRowsAVX on transposeRows' arguments,
// already checked, len(px) and cols divisible by 8.
func transposeRowsAsm(dst, src []float32, px []int, stride, cols int, db []float32) {
	if len(px) == 0 || cols == 0 {
		return
	}
	var dbp *float32
	if db != nil {
		dbp = &db[0]
	}
	transposeRowsAVX(&dst[0], &src[0], &px[0], len(px)/8, stride, cols/8, dbp)
}

// transposeRowsAVX stores a channel's row backwardKC values after the
// previous one (384 bytes): this fails to compile if backwardKC changes.
var _ = [1]struct{}{}[backwardKC-96]

//go:noescape
func transposeRowsAVX(dst, src *float32, px *int, groups, stride, chans int, db *float32)

// addToAsm runs addToAVX on addTo's arguments, of the same length,
// divisible by 8.
func addToAsm(dst, src []float32) {
	if len(dst) == 0 {
		return
	}
	addToAVX(&dst[0], &src[0], len(dst)/8)
}

//go:noescape
func addToAVX(dst, src *float32, blocks int)

// expShiftedAsm runs expShiftedAVX on ExpShifted's arguments, of a length
// divisible by 8.
func expShiftedAsm(x []float32, shift float32) float32 {
	if len(x) == 0 {
		return 0
	}
	return expShiftedAVX(&x[0], len(x)/8, shift, &expConstants)
}

//go:noescape
func expShiftedAVX(x *float32, blocks int, shift float32, c *[11][8]float32) float32
