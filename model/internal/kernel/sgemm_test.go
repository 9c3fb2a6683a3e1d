package kernel

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// sgemmCase is one Sgemm call: shapes, transposes, extra stride and
// scalars.
type sgemmCase struct {
	tA, tB      blas.Transpose
	m, n, k     int
	pad         int // added to every leading dimension
	alpha, beta float32
}

func (c sgemmCase) String() string {
	return fmt.Sprintf("%c%c/m=%d,n=%d,k=%d,pad=%d,alpha=%v,beta=%v", c.tA, c.tB, c.m, c.n, c.k, c.pad, c.alpha, c.beta)
}

// operands returns random A, B and C with their leading dimensions.
func (c sgemmCase) operands(seed uint64) (a []float32, lda int, b []float32, ldb int, cm []float32, ldc int) {
	ra, ca := c.m, c.k
	if c.tA != blas.NoTrans {
		ra, ca = c.k, c.m
	}
	rb, cb := c.k, c.n
	if c.tB != blas.NoTrans {
		rb, cb = c.n, c.k
	}
	lda, ldb, ldc = max(1, ca)+c.pad, max(1, cb)+c.pad, max(1, c.n)+c.pad
	return randSlice(ra*lda, seed), lda, randSlice(rb*ldb, seed+1), ldb, randSlice(c.m*ldc, seed+2), ldc
}

// checkSgemmCase runs the case through BLAS and gonum and compares C,
// padding included (Sgemm must not write it).
func checkSgemmCase(t *testing.T, tc sgemmCase, seed uint64) {
	t.Helper()
	a, lda, b, ldb, c, ldc := tc.operands(seed)
	want := append([]float32(nil), c...)
	gonum.Implementation{}.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, want, ldc)
	BLAS{}.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
	// Both sum k products in float32, in different orders.
	tol := 1e-5 * float64(tc.k+1) * float64(1+math.Abs(float64(tc.alpha))) * 4
	for i := range c {
		if d := math.Abs(float64(c[i] - want[i])); d > tol*(1+math.Abs(float64(want[i]))) || math.IsNaN(float64(c[i])) {
			t.Fatalf("%v: c[%d] = %v, gonum %v", tc, i, c[i], want[i])
		}
	}
}

func TestSgemm(t *testing.T) {
	N, T := blas.NoTrans, blas.Trans
	var cases []sgemmCase
	for _, tA := range []blas.Transpose{N, T} {
		for _, tB := range []blas.Transpose{N, T} {
			cases = append(cases,
				sgemmCase{tA, tB, 1, 1, 1, 0, 1, 0},
				sgemmCase{tA, tB, 6, 16, 32, 0, 1, 0},
				sgemmCase{tA, tB, 7, 17, 5, 3, 1, 1},
				sgemmCase{tA, tB, 32, 72, 64, 0, 1, 0},        // value head
				sgemmCase{tA, tB, 288, 32, 1152, 1, 1, 0},     // a conv's im2col product
				sgemmCase{tA, tB, 100, 3, 300, 2, -0.5, 0.25}, // several k blocks
				sgemmCase{tA, tB, 13, 40, 9, 0, 0, 2},         // alpha 0 scales C
				sgemmCase{tA, tB, 5, 4, 0, 0, 1, 0},           // k 0 clears C
				sgemmCase{tA, tB, 0, 4, 3, 0, 1, 0},
			)
		}
	}
	cases = append(cases, sgemmCase{blas.ConjTrans, blas.ConjTrans, 9, 9, 9, 1, 1, 0})
	for i, tc := range cases {
		t.Run(tc.String(), func(t *testing.T) { checkSgemmCase(t, tc, uint64(10*i)) })
	}
}

// TestSgemmPanics checks that bad arguments panic with gonum's message.
func TestSgemmPanics(t *testing.T) {
	N, T := blas.NoTrans, blas.Trans
	short := make([]float32, 5)
	long := make([]float32, 100)
	for _, tc := range []struct {
		name          string
		tA, tB        blas.Transpose
		m, n, k       int
		lda, ldb, ldc int
		a, b, c       []float32
	}{
		{"bad transpose", 'x', N, 2, 2, 2, 2, 2, 2, long, long, long},
		{"m < 0", N, N, -1, 2, 2, 2, 2, 2, long, long, long},
		{"n < 0", N, N, 2, -1, 2, 2, 2, 2, long, long, long},
		{"k < 0", N, N, 2, 2, -1, 2, 2, 2, long, long, long},
		{"lda", N, N, 2, 2, 3, 2, 2, 2, long, long, long},
		{"lda trans", T, N, 3, 2, 2, 2, 2, 2, long, long, long},
		{"ldb", N, N, 2, 3, 2, 2, 2, 3, long, long, long},
		{"ldb trans", N, T, 2, 2, 3, 3, 2, 2, long, long, long},
		{"ldc", N, N, 2, 3, 2, 2, 3, 2, long, long, long},
		{"short a", N, N, 3, 3, 3, 3, 3, 3, short, long, long},
		{"short b", N, N, 3, 3, 3, 3, 3, 3, long, short, long},
		{"short c", N, N, 3, 3, 3, 3, 3, 3, long, long, short},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := func(impl blas.Float32) (msg any) {
				defer func() { msg = recover() }()
				impl.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, 1, tc.a, tc.lda, tc.b, tc.ldb, 0, tc.c, tc.ldc)
				return nil
			}
			want := msg(gonum.Implementation{})
			if want == nil {
				t.Fatal("gonum does not panic: bad test case")
			}
			if got := msg(BLAS{}); got != want {
				t.Errorf("panic %v, gonum's %v", got, want)
			}
		})
	}
}

func FuzzSgemm(f *testing.F) {
	f.Add(uint8(0), uint8(6), uint8(16), uint16(32), uint8(0), float32(1), float32(0), uint64(1))
	f.Add(uint8(3), uint8(7), uint8(33), uint16(300), uint8(2), float32(-2), float32(0.5), uint64(2))
	f.Fuzz(func(t *testing.T, trans, m, n uint8, k uint16, pad uint8, alpha, beta float32, seed uint64) {
		if math.IsNaN(float64(alpha)) || math.IsNaN(float64(beta)) || math.Abs(float64(alpha)) > 1e3 || math.Abs(float64(beta)) > 1e3 {
			t.Skip("scalars out of the tested range")
		}
		tA, tB := blas.NoTrans, blas.NoTrans
		if trans&1 != 0 {
			tA = blas.Trans
		}
		if trans&2 != 0 {
			tB = blas.Trans
		}
		tc := sgemmCase{tA, tB, int(m % 80), int(n % 80), int(k % 600), int(pad % 5), alpha, beta}
		checkSgemmCase(t, tc, seed)
	})
}

func BenchmarkSgemm(b *testing.B) {
	// gorgonia's conv at batch 32 and 32 channels, as it calls Sgemm: the
	// im2col rows (B*36 x C*9) times the filter, transposed.
	for _, tc := range []sgemmCase{
		{blas.NoTrans, blas.Trans, 32 * 36, 32, 32 * 9, 0, 1, 0},
		{blas.NoTrans, blas.NoTrans, 32, 64, 72, 0, 1, 0},
		{blas.Trans, blas.NoTrans, 288, 32, 1152, 0, 1, 0},
	} {
		a, lda, bm, ldb, c, ldc := tc.operands(1)
		for _, impl := range []struct {
			name string
			blas.Float32
		}{{"gonum", gonum.Implementation{}}, {"fast", BLAS{}}} {
			b.Run(impl.name+"/"+tc.String(), func(b *testing.B) {
				for b.Loop() {
					impl.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, a, lda, bm, ldb, tc.beta, c, ldc)
				}
				b.ReportMetric(2*float64(tc.m*tc.n*tc.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
