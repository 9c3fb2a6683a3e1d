package kernel

import (
	"fmt"
	"math"
)

// AdamStep is one Adam update's coefficients (see Adam).
type AdamStep struct {
	// Decay is the L2 term's gradient factor (0 for arrays that do not
	// decay); Beta1 and Beta2 the moments' decay rates; Step the step size
	// and Eps the epsilon, with the bias corrections folded in.
	Decay, Beta1, Beta2, Step, Eps float32
}

// Adam applies one Adam update to the weights w given their loss gradient
// g and moments m and v, elementwise:
//
//	gj = g + Decay*w
//	m = Beta1*m + (1-Beta1)*gj
//	v = Beta2*v + (1-Beta2)*gj*gj
//	w = w - Step*m / (sqrt(v) + Eps)
//
// in float32, each operation rounded on its own (no fused multiply-add),
// so that the AVX form (8 values at once) and the portable one agree bit
// for bit. Then it stores w, m and v flushed: a subnormal result (and
// -0) stored as +0, since x86 cores compute tens of times slower with a
// subnormal operand (see optim.FlushSubnormals). The slices must have the
// same length.
func Adam(w, g, m, v []float32, c AdamStep) {
	if len(g) != len(w) || len(m) != len(w) || len(v) != len(w) {
		panic(fmt.Sprintf("kernel: Adam of %d weights with %d gradients, %d and %d moments", len(w), len(g), len(m), len(v)))
	}
	n := 0
	if fastKernels {
		n = len(w) / 8 * 8
		adamAsm(w[:n], g[:n], m[:n], v[:n], &c)
	}
	adamGo(w[n:], g[n:], m[n:], v[n:], &c)
}

// adamGo is the portable form of Adam. The conversions round each product
// to float32, which keeps the compiler from fusing it with the addition.
func adamGo(w, g, m, v []float32, c *AdamStep) {
	b1, b2, c1, c2 := c.Beta1, c.Beta2, 1-c.Beta1, 1-c.Beta2
	for j := range w {
		gj := g[j] + float32(c.Decay*w[j])
		mj := float32(b1*m[j]) + float32(c1*gj)
		vj := float32(b2*v[j]) + float32(float32(c2*gj)*gj)
		m[j], v[j] = flush(mj), flush(vj)
		w[j] = flush(w[j] - float32(c.Step*mj)/(sqrt32(vj)+c.Eps))
	}
}

// flush is x, or +0 if x is subnormal or zero: what the AVX form's
// compare of the magnitude's bits with the smallest normal's gives.
func flush(x float32) float32 {
	if math.Float32bits(x)&0x7fffffff < 0x00800000 {
		return 0
	}
	return x
}

// sqrt32 is the float32 square root, correctly rounded (the float64 one
// rounded to float32 is: float64 has more than twice float32's precision),
// as the AVX form's VSQRTPS.
func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }
