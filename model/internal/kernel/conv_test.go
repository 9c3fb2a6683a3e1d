package kernel

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/deathstacks/deathstacks/env"
)

// The convolutions are checked against float64 definitions over compact
// activations: value (b, square, channel) at (b*36+s)*ch+c.

// padded lays compact activations of ch channels out channel-last with a
// zero border and the given channel stride.
func padded(x []float32, batch, ch, stride int) []float32 {
	out := make([]float32, batch*paddedPixels*stride)
	for b := range batch {
		for s := range env.NumSquares {
			copy(out[(rowStart(b, s/side)+s%side)*stride:][:ch], x[(b*env.NumSquares+s)*ch:][:ch])
		}
	}
	return out
}

// compact is padded's inverse; it also reports whether the border and the
// padding channels are zero.
func compact(p []float32, batch, ch, stride int) (x []float32, clean bool) {
	x = make([]float32, batch*env.NumSquares*ch)
	clean = true
	for px, v := range p {
		b, q := px/stride/paddedPixels, px/stride%paddedPixels
		y, xx, c := q/PaddedSide-1, q%PaddedSide-1, px%stride
		if y < 0 || y >= side || xx < 0 || xx >= side || c >= ch {
			clean = clean && v == 0
			continue
		}
		x[(b*env.NumSquares+y*side+xx)*ch+c] = v
	}
	return x, clean
}

// neighbour is the square at (dy, dx) - 1 from s, or -1 off the board.
func neighbour(s, t int) int {
	y, x := s/side+t/3-1, s%side+t%3-1
	if y < 0 || y >= side || x < 0 || x >= side {
		return -1
	}
	return y*side + x
}

func near(t *testing.T, what string, got []float32, want []float64) {
	t.Helper()
	scale := 1.0
	for _, w := range want {
		scale = max(scale, math.Abs(w))
	}
	for i := range want {
		if d := math.Abs(float64(got[i]) - want[i]); !(d <= 1e-4*scale) {
			t.Fatalf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}

func TestConv(t *testing.T) {
	for _, tc := range []struct{ batch, in, out int }{
		{1, 3, 5}, {2, 8, 16}, {3, 17, 17}, {2, 32, 32}, {1, 21, 40},
	} {
		t.Run(fmt.Sprintf("batch=%d/in=%d/out=%d", tc.batch, tc.in, tc.out), func(t *testing.T) {
			const sq = env.NumSquares
			bs, in, out := tc.batch, tc.in, tc.out
			inStride, stride := Stride(in), Stride(out)
			w := randSlice(out*in*9, 1)
			bias := randSlice(out, 2)
			x := randSlice(bs*sq*in, 3)
			res := randSlice(bs*sq*out, 4)
			g := randSlice(bs*sq*out, 5)
			var p conv
			p.pack(w, out, in, bias, true)

			// Forward, with a residual and ReLU.
			want := make([]float64, bs*sq*out)
			for b := range bs {
				for s := range sq {
					for o := range out {
						v := float64(bias[o]) + float64(res[(b*sq+s)*out+o])
						for tap := range 9 {
							if n := neighbour(s, tap); n >= 0 {
								for c := range in {
									v += float64(w[(o*in+c)*9+tap]) * float64(x[(b*sq+n)*in+c])
								}
							}
						}
						want[(b*sq+s)*out+o] = max(v, 0)
					}
				}
			}
			dst := make([]float32, bs*paddedPixels*stride)
			p.forward(bs, padded(x, bs, in, inStride), inStride, dst, stride, padded(res, bs, out, stride))
			got, clean := compact(dst, bs, out, stride)
			near(t, "forward", got, want)
			if !clean {
				t.Error("forward wrote the border or the padding channels")
			}

			// BackwardInput, with a residual gradient added.
			resIn := randSlice(bs*sq*in, 6)
			wantIn := make([]float64, bs*sq*in)
			for i, v := range resIn {
				wantIn[i] = float64(v)
			}
			for b := range bs {
				for s := range sq {
					for tap := range 9 {
						if n := neighbour(s, tap); n >= 0 {
							for o := range out {
								for c := range in {
									wantIn[(b*sq+n)*in+c] += float64(w[(o*in+c)*9+tap]) * float64(g[(b*sq+s)*out+o])
								}
							}
						}
					}
				}
			}
			dx := padded(resIn, bs, in, inStride)
			p.backwardInput(bs, padded(g, bs, out, stride), stride, dx, dx, nil)
			gotIn, clean := compact(dx, bs, in, inStride)
			near(t, "input gradient", gotIn, wantIn)
			if !clean {
				t.Error("BackwardInput wrote the border or the padding channels")
			}
			// Through a ReLU: the same, zeroed where its output is not
			// positive.
			y := randSlice(bs*sq*in, 12)
			for i := range wantIn {
				if y[i] <= 0 {
					wantIn[i] = 0
				}
			}
			dx = padded(resIn, bs, in, inStride)
			p.backwardInput(bs, padded(g, bs, out, stride), stride, dx, dx, padded(y, bs, in, inStride))
			gotIn, clean = compact(dx, bs, in, inStride)
			near(t, "input gradient through a ReLU", gotIn, wantIn)
			if !clean {
				t.Error("BackwardInput through a ReLU wrote the border or the padding channels")
			}

			// BackwardWeights.
			wantW := make([]float64, len(w))
			wantB := make([]float64, out)
			for b := range bs {
				for s := range sq {
					for o := range out {
						gv := float64(g[(b*sq+s)*out+o])
						wantB[o] += gv
						for tap := range 9 {
							if n := neighbour(s, tap); n >= 0 {
								for c := range in {
									wantW[(o*in+c)*9+tap] += gv * float64(x[(b*sq+n)*in+c])
								}
							}
						}
					}
				}
			}
			dw, db := randSlice(len(w), 7), randSlice(out, 8) // overwritten
			p.backwardWeights(bs, padded(x, bs, in, inStride), inStride, padded(g, bs, out, stride), stride, dw, db)
			near(t, "weight gradient", dw, wantW)
			near(t, "bias gradient", db, wantB)
		})
	}
}

func TestHead(t *testing.T) {
	const sq = env.NumSquares
	for _, tc := range []struct {
		batch, in, planes int
		perOutput, relu   bool
	}{
		{1, 8, 192, true, false},
		{3, 17, 2, false, true},
		{2, 32, 7, false, true},
		{4, 32, 192, true, false},
		// Planes whose last tile would read past a square's row (18 rows
		// of tiles, 16 planes a square): the weights' gradient by squares
		// moves it back.
		{2, 32, 14, false, true},
		{3, 17, 16, true, false},
	} {
		t.Run(fmt.Sprintf("batch=%d/in=%d/planes=%d/relu=%v", tc.batch, tc.in, tc.planes, tc.relu), func(t *testing.T) {
			bs, in, planes := tc.batch, tc.in, tc.planes
			stride := Stride(in)
			w := randSlice(planes*in, 1)
			nb := planes
			if tc.perOutput {
				nb = planes * sq
			}
			bias := randSlice(nb, 2)
			h := randSlice(bs*sq*in, 3)
			gout := randSlice(bs*planes*sq, 4)
			var p Head
			p.Pack(w, planes, in, bias, tc.relu, true)
			biasAt := func(q, s int) float64 {
				if tc.perOutput {
					return float64(bias[q*sq+s])
				}
				return float64(bias[q])
			}
			want := make([]float64, bs*planes*sq)
			for b := range bs {
				for q := range planes {
					for s := range sq {
						v := biasAt(q, s)
						for c := range in {
							v += float64(w[q*in+c]) * float64(h[(b*sq+s)*in+c])
						}
						if tc.relu {
							v = max(v, 0)
						}
						want[(b*planes+q)*sq+s] = v
					}
				}
			}
			hp := padded(h, bs, in, stride)
			out := make([]float32, len(want))
			p.Forward(bs, hp, stride, out)
			near(t, "forward", out, want)
			ld := p.squareStride()
			sqOut := randSlice(bs*sq*ld, 7) // overwritten
			p.ForwardSquares(bs, hp, stride, sqOut)
			wantSq := make([]float64, len(sqOut))
			for b := range bs {
				for q := range planes {
					for s := range sq {
						wantSq[(b*sq+s)*ld+q] = want[(b*planes+q)*sq+s]
					}
				}
			}
			near(t, "forward by squares", sqOut, wantSq)

			wantH := make([]float64, len(h))
			wantW := make([]float64, len(w))
			wantB := make([]float64, nb)
			for b := range bs {
				for q := range planes {
					for s := range sq {
						i := (b*planes+q)*sq + s
						gv := float64(gout[i])
						if tc.relu && want[i] <= 0 {
							gv = 0
						}
						if tc.perOutput {
							wantB[q*sq+s] += gv
						} else {
							wantB[q] += gv
						}
						for c := range in {
							wantH[(b*sq+s)*in+c] += gv * float64(w[q*in+c])
							wantW[q*in+c] += gv * float64(h[(b*sq+s)*in+c])
						}
					}
				}
			}
			// Garbage in every channel of the board pixels: all of them
			// must be overwritten.
			dh := padded(randSlice(bs*sq*stride, 12), bs, stride, stride)
			dw, db := randSlice(len(w), 5), randSlice(nb, 6)
			p.Backward(bs, hp, stride, out, gout, dh, dw, db)
			gotH, clean := compact(dh, bs, in, stride)
			near(t, "input gradient", gotH, wantH)
			near(t, "weight gradient", dw, wantW)
			near(t, "bias gradient", db, wantB)
			if !clean {
				t.Error("Backward wrote the border or the padding channels")
			}

			// The same gradients from ForwardSquares' output: the padding
			// planes' gradient is ignored.
			gSq := randSlice(len(sqOut), 8)
			for b := range bs {
				for q := range planes {
					for s := range sq {
						gSq[(b*sq+s)*ld+q] = gout[(b*planes+q)*sq+s]
					}
				}
			}
			// Garbage in every channel of the board pixels: all of them
			// must be overwritten.
			dh = padded(randSlice(bs*sq*stride, 9), bs, stride, stride)
			dw, db = randSlice(len(w), 10), randSlice(nb, 11)
			p.BackwardSquares(bs, hp, stride, sqOut, gSq, dh, dw, db)
			gotH, clean = compact(dh, bs, in, stride)
			near(t, "input gradient by squares", gotH, wantH)
			near(t, "weight gradient by squares", dw, wantW)
			near(t, "bias gradient by squares", db, wantB)
			if !clean {
				t.Error("BackwardSquares wrote the border or the padding channels")
			}
		})
	}
}

func TestReLUBackward(t *testing.T) {
	g := []float32{1, 2, 3, 4}
	reluBackward(g, g, []float32{0.5, 0, -1, 2})
	if want := []float32{1, 0, 0, 4}; fmt.Sprint(g) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", g, want)
	}
}

// TestReLUBackwardForms checks the AVX form against the portable one bit
// for bit, with zeros of both signs, NaNs and infinities among the
// outputs, at lengths with and without a tail past the last 8 values.
func TestReLUBackwardForms(t *testing.T) {
	if !haveAVX2FMA {
		t.Skip("no AVX2 and FMA on this CPU")
	}
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, n := range []int{0, 7, 8, 37, 192} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			y, g := randSlice(n, 1), randSlice(n, 2)
			for i, v := range []float32{0, float32(math.Copysign(0, -1)), nan, inf, -inf} {
				if i < n {
					y[i*3%n] = v
				}
			}
			want, got := slices.Clone(g), make([]float32, n)
			reluBackwardGo(want, want, y)
			k := n / 8 * 8
			reluBackwardAsm(got[:k], g[:k], y[:k])
			reluBackwardGo(got[k:], g[k:], y[k:])
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("value %d (output %v): AVX %v, Go %v", i, y[i], got[i], want[i])
				}
			}
		})
	}
}

func BenchmarkConv(b *testing.B) {
	// The default network's block convolution at batch 64 (training).
	const bs, ch = 64, 32
	stride := Stride(ch)
	var p conv
	p.pack(randSlice(ch*ch*9, 1), ch, ch, randSlice(ch, 2), true)
	x := padded(randSlice(bs*env.NumSquares*ch, 3), bs, ch, stride)
	g := padded(randSlice(bs*env.NumSquares*ch, 4), bs, ch, stride)
	dst := make([]float32, len(x))
	dw, db := make([]float32, ch*ch*9), make([]float32, ch)
	flops := 2 * float64(bs*env.NumSquares*ch*ch*9)
	for _, pass := range []struct {
		name string
		run  func()
	}{
		{"forward", func() { p.forward(bs, x, stride, dst, stride, nil) }},
		{"input", func() { p.backwardInput(bs, g, stride, dst, nil, nil) }},
		{"weights", func() { p.backwardWeights(bs, x, stride, g, stride, dw, db) }},
	} {
		b.Run(pass.name, func(b *testing.B) {
			for b.Loop() {
				pass.run()
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
	// The stem's weights' gradient: input planes that are not a whole
	// number of blocks of 8 channels.
	b.Run("weights-stem", func(b *testing.B) {
		const planes = env.NumPlanes
		var stem conv
		stem.pack(randSlice(ch*planes*9, 5), ch, planes, randSlice(ch, 6), true)
		inStride := inputStride(planes)
		obs := padded(randSlice(bs*env.NumSquares*planes, 7), bs, planes, inStride)
		dw := make([]float32, ch*planes*9)
		for b.Loop() {
			stem.backwardWeights(bs, obs, inStride, g, stride, dw, db)
		}
		b.ReportMetric(2*float64(bs*env.NumSquares*ch*planes*9)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}

func BenchmarkPad(b *testing.B) {
	// The server's batch of 32 observations into the stem's layout.
	const bs, planes = 32, env.NumPlanes
	stride := inputStride(planes)
	obs := randSlice(bs*planes*env.NumSquares, 1)
	dst := make([]float32, bs*paddedPixels*stride)
	for b.Loop() {
		pad(dst, obs, bs, planes, stride)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*bs), "ns/position")
}

// BenchmarkValueHead runs the default network's value head (2 planes,
// through ReLU) at the server's batch of 32: plane-major as training runs
// it, where packing each position counts, and square-major as inference
// does, where a tile is 16 planes of which 2 are the head's.
func BenchmarkValueHead(b *testing.B) {
	// The default network's value head's 1x1 convolution at batch 32.
	const bs, in, planes = 32, 32, 2
	stride := Stride(in)
	var p Head
	p.Pack(randSlice(planes*in, 1), planes, in, randSlice(planes, 2), true, true)
	h := padded(randSlice(bs*env.NumSquares*in, 3), bs, in, stride)
	out, outSq := make([]float32, bs*planes*env.NumSquares), make([]float32, bs*env.NumSquares*Stride(planes))
	gout := randSlice(len(out), 4)
	dh := make([]float32, len(h))
	dw, db := make([]float32, planes*in), make([]float32, planes)
	for _, pass := range []struct {
		name string
		run  func()
	}{
		{"forward", func() { p.Forward(bs, h, stride, out) }},
		{"forward-squares", func() { p.ForwardSquares(bs, h, stride, outSq) }},
		{"backward", func() { p.Backward(bs, h, stride, out, gout, dh, dw, db) }},
	} {
		b.Run(pass.name, func(b *testing.B) {
			for b.Loop() {
				pass.run()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*bs), "ns/position")
		})
	}
}

func BenchmarkHead(b *testing.B) {
	// The default network's policy head at batch 32 (a training shard),
	// plane-major and square-major.
	const bs, in, planes = 32, 32, 192
	stride := Stride(in)
	var p Head
	p.Pack(randSlice(planes*in, 1), planes, in, randSlice(planes*env.NumSquares, 2), false, true)
	h := padded(randSlice(bs*env.NumSquares*in, 3), bs, in, stride)
	out := make([]float32, bs*planes*env.NumSquares)
	gout := randSlice(len(out), 4)
	dh := make([]float32, len(h))
	dw, db := make([]float32, planes*in), make([]float32, planes*env.NumSquares)
	flops := 2 * float64(bs*env.NumSquares*in*planes)
	for _, pass := range []struct {
		name  string
		run   func()
		flops float64
	}{
		{"forward", func() { p.Forward(bs, h, stride, out) }, flops},
		{"backward", func() { p.Backward(bs, h, stride, out, gout, dh, dw, db) }, 2 * flops},
		{"forward-squares", func() { p.ForwardSquares(bs, h, stride, out) }, flops},
		{"backward-squares", func() { p.BackwardSquares(bs, h, stride, out, gout, dh, dw, db) }, 2 * flops},
	} {
		b.Run(pass.name, func(b *testing.B) {
			for b.Loop() {
				pass.run()
			}
			b.ReportMetric(pass.flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

func BenchmarkReLUBackward(b *testing.B) {
	// A block's activations at batch 32, half of them not positive.
	y := randSlice(32*paddedPixels*32, 1)
	g := randSlice(len(y), 2)
	for b.Loop() {
		reluBackward(g, g, y)
	}
}
