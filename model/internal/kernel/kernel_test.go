package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"
)

// refKernel is kernel's definition in float64.
func refKernel(a []float32, offs []int, k, lda int, b, c []float32, ldc int, bias, res []float32, flags int) []float64 {
	out := make([]float64, mr*nr)
	for i := range mr {
		for j := range nr {
			var s float64
			for t, off := range offs {
				for p := range k {
					s += float64(a[off+i*lda+p]) * float64(b[(t*k+p)*nr+j])
				}
			}
			if flags&kernelAccumulate != 0 {
				s += float64(c[i*ldc+j])
			}
			if bias != nil {
				s += float64(bias[j])
			}
			if res != nil {
				s += float64(res[i*ldc+j])
			}
			if flags&kernelReLU != 0 {
				s = max(s, 0)
			}
			out[i*nr+j] = s
		}
	}
	return out
}

func randSlice(n int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s
}

func TestKernel(t *testing.T) {
	type kernelFunc = func(a []float32, offs []int, k, lda int, b, c []float32, ldc int, bias, res []float32, flags int)
	impls := map[string]kernelFunc{"go": kernelGo}
	if haveAVX2FMA {
		impls["avx2"] = kernelAsm
	}
	for _, tc := range []struct {
		name      string
		offs      []int
		k, lda    int
		ldc       int
		bias, res bool
		flags     int
	}{
		{"k=0", []int{0}, 0, 4, 16, false, false, 0},
		{"one tap", []int{0}, 5, 7, 16, false, false, 0},
		{"one tap accumulate", []int{3}, 32, 40, 20, false, false, kernelAccumulate},
		{"nine taps bias relu", []int{0, 8, 16, 64, 72, 80, 128, 136, 144}, 8, 8, 32, true, false, kernelReLU},
		{"residual relu", []int{0, 21, 42}, 21, 21, 48, true, true, kernelReLU},
		{"everything", []int{10, 0, 5}, 3, 11, 17, true, true, kernelAccumulate | kernelReLU},
	} {
		maxOff := 0
		for _, o := range tc.offs {
			maxOff = max(maxOff, o)
		}
		a := randSlice(maxOff+(mr-1)*tc.lda+tc.k, 1)
		b := randSlice(len(tc.offs)*tc.k*nr, 2)
		c0 := randSlice((mr-1)*tc.ldc+nr, 3)
		var bias, res []float32
		if tc.bias {
			bias = randSlice(nr, 4)
		}
		if tc.res {
			res = randSlice(len(c0), 5)
		}
		want := refKernel(a, tc.offs, tc.k, tc.lda, b, c0, tc.ldc, bias, res, tc.flags)
		for name, f := range impls {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				c := append([]float32(nil), c0...)
				f(a, tc.offs, tc.k, tc.lda, b, c, tc.ldc, bias, res, tc.flags)
				for idx, got := range c {
					i, j := idx/tc.ldc, idx%tc.ldc
					w := float64(c0[idx]) // outside the tile: untouched
					if j < nr {
						w = want[i*nr+j]
					}
					if math.Abs(float64(got)-w) > 1e-4*(1+math.Abs(w)) {
						t.Fatalf("c[%d][%d] = %v, want %v", i, j, got, w)
					}
				}
			})
		}
	}
}

// TestKernelFlushesSubnormals checks that the assembly kernels read a
// subnormal operand as 0 and store a subnormal result as 0, and that they
// leave the thread's floating-point mode as they found it: Go arithmetic
// after a call still produces subnormals.
func TestKernelFlushesSubnormals(t *testing.T) {
	if !haveAVX2FMA {
		t.Skip("no assembly kernels on this CPU")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tiny, small, huge := float32(1e-40), float32(1e-20), float32(1e30)
	// Row 0 is a subnormal times huge (1e-10 if it were read), row 1 small
	// times small (a subnormal 1e-40) and small times huge (1e10).
	a := make([]float32, mr)
	a[0], a[1] = tiny, small
	b := make([]float32, 2*nr)
	for j := range b {
		b[j] = small
		if j%nr >= nr/2 {
			b[j] = huge
		}
	}
	want := func(i, j int) float32 {
		if i == 1 && j%nr >= nr/2 {
			return small * huge
		}
		return 0
	}
	kernels := map[string]func(c []float32){
		"avx2": func(c []float32) { kernelAsm(a, []int{0}, 1, 1, b, c, nr, nil, nil, 0) },
	}
	if haveAVX512 {
		kernels["avx512"] = func(c []float32) { kernelWideAsm(a, []int{0}, 1, 1, b, nr, c, 2*nr, nil, nil, 0, oneRow) }
	}
	for name, run := range kernels {
		c := make([]float32, mr*2*nr)
		run(c)
		ldc := 2 * nr
		if name == "avx2" {
			ldc = nr
		}
		for i := range mr {
			for j := range ldc {
				if got := c[i*ldc+j]; got != want(i, j) {
					t.Errorf("%s: c[%d][%d] = %g, want %g", name, i, j, got, want(i, j))
				}
			}
		}
		if x := small; x*small == 0 {
			t.Fatalf("%s: Go's float32 arithmetic flushes subnormals after the kernel", name)
		}
	}
}

// TestKernelPanels checks kernelPanels against kernel's definition panel
// by panel and tile of rows by tile of rows, in the kernels in use, and
// the AVX-512 kernel (on a CPU that has it, whatever the kernels in use)
// against two calls of the AVX2 kernel a tile of rows: the same bits.
func TestKernelPanels(t *testing.T) {
	for _, tc := range []struct {
		name      string
		offs      []int
		k, lda    int
		panels    int
		ldc       int
		bias, res bool
		flags     int
		tiles     int // of rows, each aStep 5 values of a after the one before
	}{
		{"one panel", []int{0}, 7, 9, 1, 16, true, false, kernelReLU, 1},
		{"two panels k=0", []int{0}, 0, 4, 2, 32, true, true, kernelReLU, 1},
		{"two panels nine taps", []int{0, 8, 16, 64, 72, 80, 128, 136, 144}, 8, 8, 2, 40, true, false, kernelReLU, 1},
		{"three panels residual", []int{0, 21, 42}, 21, 21, 3, 50, true, true, kernelReLU, 1},
		{"four panels accumulate", []int{5, 0}, 32, 33, 4, 64, false, false, kernelAccumulate, 1},
		{"five panels everything", []int{10, 0, 5}, 3, 11, 5, 83, true, true, kernelAccumulate | kernelReLU, 1},
		{"two panels ldc too narrow for one wide tile", []int{0}, 4, 4, 2, 20, false, false, 0, 1},
		{"one panel six tiles of rows", []int{0, 3}, 5, 6, 1, 16, true, true, kernelReLU, 6},
		{"two panels six tiles of rows nine taps", []int{0, 8, 16, 64, 72, 80, 128, 136, 144}, 8, 8, 2, 40, true, true, kernelReLU, 6},
		{"three panels two tiles of rows accumulate", []int{2}, 12, 12, 3, 48, false, true, kernelAccumulate, 2},
		{"two panels three tiles of rows k=0", []int{0}, 0, 4, 2, 32, true, false, 0, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cols := tc.panels * nr
			// Tiles of rows that do not overlap in c, as the callers' do.
			down := rowTiles{n: tc.tiles, aStep: 5, cStep: (mr-1)*tc.ldc + max(cols, tc.ldc) + 3}
			last := (tc.tiles - 1) * down.cStep
			a := randSlice(slices.Max(tc.offs)+(mr-1)*tc.lda+tc.k+(tc.tiles-1)*down.aStep, 1)
			bStep := len(tc.offs)*tc.k*nr + 3 // panels apart by more than a panel
			b := randSlice(tc.panels*bStep, 2)
			c0 := randSlice(last+(mr-1)*tc.ldc+max(cols, tc.ldc), 3)
			var bias, res []float32
			if tc.bias {
				bias = randSlice(cols, 4)
			}
			if tc.res {
				res = randSlice(len(c0), 5)
			}
			// Panel by panel into a copy each, as the definition: with an
			// ldc narrower than the panels, a later panel's columns overlap
			// the next row's.
			want := append([]float32(nil), c0...)
			for i := range tc.tiles {
				ai, ci := i*down.aStep, i*down.cStep
				for j := range tc.panels {
					kernelGo(a[ai:], tc.offs, tc.k, tc.lda, b[j*bStep:], want[ci+j*nr:], tc.ldc, suffix(bias, j*nr), suffix(res, ci+j*nr), tc.flags)
				}
			}
			c := append([]float32(nil), c0...)
			kernelPanels(a, tc.offs, tc.k, tc.lda, b, bStep, tc.panels, c, tc.ldc, bias, res, tc.flags, down)
			for i, got := range c {
				if w := want[i]; math.Abs(float64(got-w)) > 1e-4*(1+math.Abs(float64(w))) {
					t.Fatalf("c[%d] = %v, want %v", i, got, w)
				}
			}
			if !haveAVX512 || tc.panels < 2 || tc.ldc < 2*nr {
				return
			}
			two := append([]float32(nil), c0...)
			for i := range tc.tiles {
				ai, ci := i*down.aStep, i*down.cStep
				kernelAsm(a[ai:], tc.offs, tc.k, tc.lda, b, two[ci:], tc.ldc, bias, suffix(res, ci), tc.flags)
				kernelAsm(a[ai:], tc.offs, tc.k, tc.lda, b[bStep:], two[ci+nr:], tc.ldc, suffix(bias, nr), suffix(res, ci+nr), tc.flags)
			}
			wide := append([]float32(nil), c0...)
			kernelWideAsm(a, tc.offs, tc.k, tc.lda, b, bStep, wide, tc.ldc, bias, res, tc.flags, down)
			for i := range wide {
				if math.Float32bits(wide[i]) != math.Float32bits(two[i]) {
					t.Fatalf("AVX-512: c[%d] = %v, AVX2's %v", i, wide[i], two[i])
				}
			}
		})
	}
}

// kernelPanels checks every tile's bounds before any kernel reads or
// writes, the AVX-512 one two tiles at once.
func TestKernelPanelsChecksBounds(t *testing.T) {
	a := make([]float32, 100)
	b := make([]float32, 2*8*nr)
	c := make([]float32, (mr-1)*2*nr+2*nr)
	for _, tc := range []struct {
		name string
		run  func()
	}{
		{"second panel's b too short", func() { kernelPanels(a, []int{0}, 8, 8, b, 8*nr+1, 2, c, 2*nr, nil, nil, 0, oneRow) }},
		{"second panel's c too short", func() { kernelPanels(a, []int{0}, 8, 8, b, 8*nr, 2, c[:len(c)-1], 2*nr, nil, nil, 0, oneRow) }},
		{"second panel's bias too short", func() { kernelPanels(a, []int{0}, 8, 8, b, 8*nr, 2, c, 2*nr, make([]float32, nr+1), nil, 0, oneRow) }},
		{"second panel's res too short", func() { kernelPanels(a, []int{0}, 8, 8, b, 8*nr, 2, c, 2*nr, nil, c[:len(c)-1], 0, oneRow) }},
		{"a too short", func() { kernelPanels(a, []int{60}, 8, 8, b, 8*nr, 2, c, 2*nr, nil, nil, 0, oneRow) }},
		{"panels overlapping backwards", func() { kernelPanels(a, []int{0}, 8, 8, b, -1, 2, c, 2*nr, nil, nil, 0, oneRow) }},
		{"second tile of rows' a too short", func() { kernelPanels(a, []int{0}, 8, 8, b, 8*nr, 2, c, 2*nr, nil, nil, 0, rowTiles{n: 2, aStep: 53}) }},
		{"second tile of rows' c too short", func() { kernelPanels(a, []int{0}, 8, 8, b, 8*nr, 2, c, 2*nr, nil, nil, 0, rowTiles{n: 2, cStep: 1}) }},
		{"second tile of rows' res too short", func() {
			kernelPanels(a, []int{0}, 8, 8, b, 8*nr, 2, make([]float32, len(c)+1), 2*nr, nil, c, 0, rowTiles{n: 2, cStep: 1})
		}},
		{"tiles of rows going backwards", func() { kernelPanels(a, []int{0}, 8, 8, b, 8*nr, 2, c, 2*nr, nil, nil, 0, rowTiles{n: 2, aStep: -1}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tc.run()
		})
	}
}

func TestKernelChecksBounds(t *testing.T) {
	a := make([]float32, 100)
	b := make([]float32, 8*nr)
	c := make([]float32, mr*nr)
	for _, tc := range []struct {
		name string
		run  func()
	}{
		{"a too short", func() { kernel(a, []int{60}, 8, 8, b, c, nr, nil, nil, 0) }},
		{"negative offset", func() { kernel(a, []int{-1}, 8, 8, b, c, nr, nil, nil, 0) }},
		{"b too short", func() { kernel(a, []int{0, 1}, 8, 8, b, c, nr, nil, nil, 0) }},
		{"c too short", func() { kernel(a, []int{0}, 8, 8, b, c[:50], nr, nil, nil, 0) }},
		{"res too short", func() { kernel(a, []int{0}, 8, 8, b, c, nr, nil, c[:10], 0) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tc.run()
		})
	}
}

func BenchmarkKernel(b *testing.B) {
	// A 3x3 convolution's tile at 32 channels: 9 taps of 32.
	const k, lda = 32, 32
	offs := []int{0, 32, 64, 256, 288, 320, 512, 544, 576}
	a := randSlice(offs[8]+(mr-1)*lda+k, 1)
	w := randSlice(len(offs)*k*nr, 2)
	w2 := randSlice(2*len(offs)*k*nr, 3)
	c := make([]float32, mr*2*nr)
	// Each form computes both panels of 32 output channels.
	for _, impl := range []struct {
		name string
		have bool
		f    func()
	}{
		{"go", true, func() {
			kernelGo(a, offs, k, lda, w2, c, 2*nr, nil, nil, 0)
			kernelGo(a, offs, k, lda, w2[len(w):], c[nr:], 2*nr, nil, nil, 0)
		}},
		{"avx2", haveAVX2FMA, func() {
			kernelAsm(a, offs, k, lda, w2, c, 2*nr, nil, nil, 0)
			kernelAsm(a, offs, k, lda, w2[len(w):], c[nr:], 2*nr, nil, nil, 0)
		}},
		{"avx512", haveAVX512, func() { kernelWideAsm(a, offs, k, lda, w2, len(w), c, 2*nr, nil, nil, 0, oneRow) }},
	} {
		if !impl.have {
			continue
		}
		b.Run(impl.name, func(b *testing.B) {
			for b.Loop() {
				impl.f()
			}
			flops := 2 * float64(mr*2*nr*k*len(offs))
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

func TestPeakGFLOPS(t *testing.T) {
	cores, gflops := PeakGFLOPS(20 * time.Millisecond)
	if cores < 1 || !(gflops > 0.1) || gflops > 1e5 {
		t.Errorf("PeakGFLOPS = %d cores, %v GFLOP/s", cores, gflops)
	}
}

// The kernels in use follow the CPU, DEATHSTACKS_NOASM and
// DEATHSTACKS_NOAVX512, so that CI's runs with the variables set really
// test the portable and the AVX2 paths.
func TestKernelsInUse(t *testing.T) {
	noasm, noavx512 := os.Getenv("DEATHSTACKS_NOASM"), os.Getenv("DEATHSTACKS_NOAVX512")
	want := "go"
	if haveAVX2FMA && noasm != "1" {
		want = "avx2"
		if haveAVX512 && noavx512 != "1" {
			want = "avx512"
		}
	}
	if got := Name(); got != want {
		t.Errorf("Name() = %q, want %q (AVX2+FMA %v, AVX-512 %v, DEATHSTACKS_NOASM=%q, DEATHSTACKS_NOAVX512=%q)",
			got, want, haveAVX2FMA, haveAVX512, noasm, noavx512)
	}
}

func TestGatherRows(t *testing.T) {
	impls := map[string]func(dst, src []float32, px []int, stride, off int, sum []float32){"go": gatherRowsGo}
	if haveAVX2FMA {
		impls["avx2"] = gatherRowsAsm
	}
	const stride = 40
	src := randSlice(20*stride, 1)
	px := []int{0, 3, 2, 19, 7}
	for _, off := range []int{0, 5, stride - nr} {
		for _, summed := range []bool{false, true} {
			for name, gather := range impls {
				t.Run(fmt.Sprintf("%s/off=%d/sum=%v", name, off, summed), func(t *testing.T) {
					dst := randSlice(len(px)*nr+3, 2)
					tail := slices.Clone(dst[len(px)*nr:])
					var sum, want []float32
					if summed {
						sum = randSlice(nr+1, 3)
						want = slices.Clone(sum)
					}
					gather(dst, src, px, stride, off, sum)
					for q, p := range px {
						row := src[p*stride+off:][:nr]
						if !slices.Equal(dst[q*nr:][:nr], row) {
							t.Errorf("row %d is %v, want %v", q, dst[q*nr:][:nr], row)
						}
						if summed {
							for j, v := range row {
								want[j] += v
							}
						}
					}
					if !slices.Equal(dst[len(px)*nr:], tail) {
						t.Error("wrote past the rows")
					}
					// The running sums in the rows' order, bit for bit;
					// the value past nr untouched.
					if !slices.Equal(sum, want) {
						t.Errorf("sums %v, want %v", sum, want)
					}
				})
			}
		}
	}
	for _, tc := range []struct {
		name string
		dst  int
		px   []int
		off  int
		sums int // the sums' length, or no sums if 0
	}{
		{"row past the end", 2 * nr, []int{0, 19}, stride - nr + 1, 0},
		{"row before the start", 2 * nr, []int{0, 1}, -1, 0},
		{"dst too short", nr, []int{0, 1}, 0, 0},
		{"row past the end, not last", 3 * nr, []int{0, 20, 1}, 0, 0},
		{"row before the start, not first", 3 * nr, []int{1, -1, 2}, 0, 0},
		{"short sums", 2 * nr, []int{0, 1}, 0, nr - 1},
	} {
		t.Run("panics/"+tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			var sum []float32
			if tc.sums > 0 {
				sum = make([]float32, tc.sums)
			}
			gatherRows(make([]float32, tc.dst), src, newPixels(tc.px), stride, tc.off, sum)
		})
	}
}

// TestAllFinite checks AllFinite, and its portable form where the AVX
// one runs, on one non-finite value at each position of slices with and
// without a tail past the last 8 values, and on finite extremes.
func TestAllFinite(t *testing.T) {
	special := map[string]float32{
		"+inf": float32(math.Inf(1)), "-inf": float32(math.Inf(-1)), "nan": float32(math.NaN()),
	}
	for _, n := range []int{0, 7, 8, 37} {
		x := randSlice(n, 1)
		if n > 2 {
			x[0], x[1], x[2] = math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32
		}
		t.Run(fmt.Sprintf("n=%d/finite", n), func(t *testing.T) {
			if !AllFinite(x) || !allFiniteGo(x) {
				t.Error("finite values reported non-finite")
			}
		})
		for name, v := range special {
			t.Run(fmt.Sprintf("n=%d/%s", n, name), func(t *testing.T) {
				for i := range x {
					y := slices.Clone(x)
					y[i] = v
					if AllFinite(y) || allFiniteGo(y) {
						t.Fatalf("%v at %d reported finite", v, i)
					}
				}
			})
		}
	}
}

func BenchmarkAllFinite(b *testing.B) {
	// A training shard's logits at batch 32.
	x := randSlice(32*6912, 1)
	for b.Loop() {
		if !AllFinite(x) {
			b.Fatal("finite values reported non-finite")
		}
	}
}

// TestTransposeRows checks transposeRows against its definition, and its
// AVX form against the portable one bit for bit (the transposed values
// and the sums), at pixel and channel counts with and without a tail past
// the AVX form's blocks of 8, with and without sums.
func TestTransposeRows(t *testing.T) {
	for _, tc := range []struct{ n, cols, stride int }{
		{0, 8, 8}, {7, 5, 16}, {8, 8, 8}, {20, 17, 32}, {96, 32, 32}, {36, 40, 48},
	} {
		for _, sums := range []bool{false, true} {
			t.Run(fmt.Sprintf("n=%d/cols=%d/sums=%v", tc.n, tc.cols, sums), func(t *testing.T) {
				src := randSlice(64*tc.stride, 1)
				rng := rand.New(rand.NewPCG(uint64(tc.n), 2))
				px := make([]int, tc.n)
				for i := range px {
					px[i] = rng.IntN(64)
				}
				run := func(asm bool) ([]float32, []float32) {
					dst := make([]float32, max(tc.cols-1, 0)*backwardKC+tc.n)
					var db []float32
					if sums {
						db = randSlice(tc.cols, 3)
					}
					if asm {
						transposeRows(dst, src, px, tc.stride, tc.cols, db)
					} else {
						transposeRowsGo(dst, src, px, 0, tc.stride, 0, tc.cols, db)
					}
					return dst, db
				}
				want, wantDB := run(false)
				for q, p := range px {
					for c := range tc.cols {
						if want[c*backwardKC+q] != src[p*tc.stride+c] {
							t.Fatalf("pixel %d channel %d: %v, want %v", q, c, want[c*backwardKC+q], src[p*tc.stride+c])
						}
					}
				}
				got, gotDB := run(true)
				if !slices.Equal(got, want) || !slices.Equal(gotDB, wantDB) {
					t.Error("transposeRows differs from its portable form")
				}
			})
		}
	}
}

func TestTransposeRowsChecksBounds(t *testing.T) {
	for _, tc := range []struct {
		name string
		px   []int
		dst  int
	}{{"pixel outside", []int{0, 64}, backwardKC * 8}, {"negative pixel", []int{-1}, backwardKC * 8}, {"short destination", []int{0, 1}, 10}} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			transposeRows(make([]float32, tc.dst), make([]float32, 64*8), tc.px, 8, 8, nil)
		})
	}
}

// TestAddTo checks addTo against its portable form bit for bit, at
// lengths with and without a tail past the last 8 values.
func TestAddTo(t *testing.T) {
	for _, n := range []int{0, 7, 8, 37, 192} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dst, src := randSlice(n, 1), randSlice(n+3, 2)
			want := slices.Clone(dst)
			for i := range want {
				want[i] += src[i]
			}
			addTo(dst, src)
			if !slices.Equal(dst, want) {
				t.Errorf("addTo gave %v, want %v", dst, want)
			}
		})
	}
}
