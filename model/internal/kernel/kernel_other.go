//go:build !amd64

package kernel

// Other architectures have no assembly kernels: the portable ones run.
const (
	haveAVX2FMA = false
	haveAVX512  = false
)

func kernelAsm(a []float32, offs []int, k, lda int, b, c []float32, ldc int, bias, res []float32, flags int) {
	kernelGo(a, offs, k, lda, b, c, ldc, bias, res, flags)
}

func kernelWideAsm(a []float32, offs []int, k, lda int, b []float32, bStep int, c []float32, ldc int, bias, res []float32, flags int, down rowTiles) {
	for i := range down.n {
		ai, ci := i*down.aStep, i*down.cStep
		kernelGo(suffix(a, ai), offs, k, lda, b, c[ci:], ldc, bias, suffix(res, ci), flags)
		kernelGo(suffix(a, ai), offs, k, lda, b[bStep:], c[ci+nr:], ldc, suffix(bias, nr), suffix(res, ci+nr), flags)
	}
}

func fmaLoop(n int) float32 { return fmaLoopGo(n) }

func fmaLoopWide(n int) float32 { return fmaLoopGo(n) }

func gatherRowsAsm(dst, src []float32, px []int, stride, off int, sum []float32) {
	gatherRowsGo(dst, src, px, stride, off, sum)
}

func adamAsm(w, g, m, v []float32, c *AdamStep) { adamGo(w, g, m, v, c) }

func reluBackwardAsm(dst, g, y []float32) { reluBackwardGo(dst, g, y) }

func allFiniteAsm(x []float32) bool { return allFiniteGo(x) }

func transposeRowsAsm(dst, src []float32, px []int, stride, cols int, db []float32) {
	transposeRowsGo(dst, src, px, 0, stride, 0, cols, db)
}

func addToAsm(dst, src []float32) { addToGo(dst, src) }

func expShiftedAsm(x []float32, shift float32) float32 { return expShiftedGo(x, shift) }
