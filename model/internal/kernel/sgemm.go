package kernel

import (
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Blocking of Sgemm: a kc-deep slice of B is packed once into nr-wide
// panels (16 KB per panel at kc = 256, so a panel stays in L1 while the
// kernel walks down A), and mc rows of A at a time into mr-row panels
// (96 KB, in L2).
const (
	sgemmKC = 256
	sgemmMC = 16 * mr
)

// BLAS is gonum's BLAS with a faster float32 matrix product: Sgemm
// packs its operands into panels and runs the register-blocked
// microkernel. Everything else is gonum's. It is safe for concurrent use.
type BLAS struct {
	gonum.Implementation
}

// Panic messages of gonum's argument checks, so that bad arguments fail
// the same way as with gonum.
const (
	errBadTranspose = "blas: illegal transpose"
	errMLT0         = "blas: m < 0"
	errNLT0         = "blas: n < 0"
	errKLT0         = "blas: k < 0"
	errBadLdA       = "blas: bad leading dimension of A"
	errBadLdB       = "blas: bad leading dimension of B"
	errBadLdC       = "blas: bad leading dimension of C"
	errShortA       = "blas: insufficient length of a"
	errShortB       = "blas: insufficient length of b"
	errShortC       = "blas: insufficient length of c"
)

// sgemmScratch holds the packed panels of one Sgemm call.
type sgemmScratch struct {
	a, b []float32
	tile [mr * nr]float32
}

// sgemmPool recycles packing buffers: gorgonia calls Sgemm for every
// matrix product of every run, and fresh buffers would be garbage.
var sgemmPool = sync.Pool{New: func() any { return new(sgemmScratch) }}

// Sgemm computes C = alpha * op(A) * op(B) + beta * C for row-major
// matrices, op(X) being X or its transpose, with gonum's argument checks
// and panics.
func (BLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	aTrans, bTrans := checkSgemm(tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
	if m == 0 || n == 0 || ((alpha == 0 || k == 0) && beta == 1) {
		return
	}
	store := beta == 0
	if !store && beta != 1 {
		for i := range m {
			for j := range c[i*ldc : i*ldc+n] {
				c[i*ldc+j] *= beta
			}
		}
	}
	if alpha == 0 || k == 0 {
		if store {
			for i := range m {
				clear(c[i*ldc : i*ldc+n])
			}
		}
		return
	}
	s := sgemmPool.Get().(*sgemmScratch)
	defer sgemmPool.Put(s)
	panels := (n + nr - 1) / nr
	for pc := 0; pc < k; pc += sgemmKC {
		kc := min(sgemmKC, k-pc)
		s.b = packB(s.b, bTrans, b, ldb, pc, kc, n, panels)
		for ic := 0; ic < m; ic += sgemmMC {
			mc := min(sgemmMC, m-ic)
			s.a = packA(s.a, aTrans, a, lda, ic, mc, pc, kc, alpha)
			s.block(c[ic*ldc:], ldc, mc, n, kc, panels, store && pc == 0)
		}
	}
}

// block multiplies the packed mc x kc rows of A by the packed kc x n panels
// of B into c (mc rows of ldc), overwriting c if store, else adding to it.
func (s *sgemmScratch) block(c []float32, ldc, mc, n, kc, panels int, store bool) {
	flags := kernelAccumulate
	if store {
		flags = 0
	}
	offs := [1]int{}
	for jr := range panels {
		j0 := jr * nr
		cols := min(nr, n-j0)
		bp := s.b[jr*kc*nr : (jr+1)*kc*nr]
		for ir := 0; ir < mc; ir += mr {
			ap := s.a[ir*kc : (ir+mr)*kc]
			rows := min(mr, mc-ir)
			if rows == mr && cols == nr {
				kernel(ap, offs[:], kc, kc, bp, c[ir*ldc+j0:], ldc, nil, nil, flags)
				continue
			}
			// An edge tile goes through a full-size temporary.
			kernel(ap, offs[:], kc, kc, bp, s.tile[:], nr, nil, nil, 0)
			for i := range rows {
				dst := c[(ir+i)*ldc+j0 : (ir+i)*ldc+j0+cols]
				src := s.tile[i*nr : i*nr+cols]
				if store {
					copy(dst, src)
					continue
				}
				for j, v := range src {
					dst[j] += v
				}
			}
		}
	}
}

// packB packs rows pc..pc+kc of op(B) (n columns) into panels of nr
// columns, kc rows of nr values each, the last panel zero-padded.
func packB(dst []float32, trans bool, b []float32, ldb, pc, kc, n, panels int) []float32 {
	dst = grow(dst, panels*kc*nr)
	for jr := range panels {
		j0 := jr * nr
		cols := min(nr, n-j0)
		panel := dst[jr*kc*nr : (jr+1)*kc*nr]
		for p := range kc {
			row := panel[p*nr : p*nr+nr]
			if trans {
				for j := range cols {
					row[j] = b[(j0+j)*ldb+pc+p]
				}
			} else {
				copy(row, b[(pc+p)*ldb+j0:(pc+p)*ldb+j0+cols])
			}
			clear(row[cols:])
		}
	}
	return dst
}

// packA packs rows ic..ic+mc, columns pc..pc+kc of alpha*op(A) row-major
// with row length kc, zero-padded to a multiple of mr rows.
func packA(dst []float32, trans bool, a []float32, lda, ic, mc, pc, kc int, alpha float32) []float32 {
	rows := (mc + mr - 1) / mr * mr
	dst = grow(dst, rows*kc)
	for i := range mc {
		row := dst[i*kc : i*kc+kc]
		if trans {
			for p := range row {
				row[p] = alpha * a[(pc+p)*lda+ic+i]
			}
		} else {
			src := a[(ic+i)*lda+pc : (ic+i)*lda+pc+kc]
			if alpha == 1 {
				copy(row, src)
			} else {
				for p, v := range src {
					row[p] = alpha * v
				}
			}
		}
	}
	clear(dst[mc*kc : rows*kc])
	return dst
}

// grow returns s resliced to n values, reallocated if too small.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// checkSgemm is gonum's argument check of Sgemm; it returns whether A and
// B are transposed.
func checkSgemm(tA, tB blas.Transpose, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) (aTrans, bTrans bool) {
	for _, t := range []blas.Transpose{tA, tB} {
		if t != blas.NoTrans && t != blas.Trans && t != blas.ConjTrans {
			panic(errBadTranspose)
		}
	}
	switch {
	case m < 0:
		panic(errMLT0)
	case n < 0:
		panic(errNLT0)
	case k < 0:
		panic(errKLT0)
	}
	aTrans = tA != blas.NoTrans
	bTrans = tB != blas.NoTrans
	if (aTrans && lda < max(1, m)) || (!aTrans && lda < max(1, k)) {
		panic(errBadLdA)
	}
	if (bTrans && ldb < max(1, k)) || (!bTrans && ldb < max(1, n)) {
		panic(errBadLdB)
	}
	if ldc < max(1, n) {
		panic(errBadLdC)
	}
	if m == 0 || n == 0 {
		return aTrans, bTrans
	}
	if (aTrans && len(a) < (k-1)*lda+m) || (!aTrans && len(a) < (m-1)*lda+k) {
		panic(errShortA)
	}
	if (bTrans && len(b) < (n-1)*ldb+k) || (!bTrans && len(b) < (k-1)*ldb+n) {
		panic(errShortB)
	}
	if len(c) < (m-1)*ldc+n {
		panic(errShortC)
	}
	return aTrans, bTrans
}
