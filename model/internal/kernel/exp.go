package kernel

import "math"

// ExpShifted sets each x[i] to exp(x[i]-shift) and returns their sum: a
// softmax's numerators and denominator when shift is the largest of x.
// shift must be at least every x[i] and finite, x finite or -Inf. A value
// whose difference is below expMin becomes 0 (exp(-86) is about 4.5e-38,
// near float32's smallest normal number), the others within 1 unit in the
// last place of exp; exp(0) is 1 exactly, and equal values get equal
// results wherever they stand. The AVX2 form takes 8 values at once (Cody
// and Waite's reduction and the Cephes library's polynomial for expf, in
// FMA), a tail past the last 8 padded with -Inf; the portable one rounds
// float64's exp.
func ExpShifted(x []float32, shift float32) float32 {
	if !fastKernels {
		return expShiftedGo(x, shift)
	}
	n := len(x) / 8 * 8
	sum := expShiftedAsm(x[:n], shift)
	if n < len(x) {
		tail := [8]float32{}
		for i := range tail {
			tail[i] = float32(math.Inf(-1))
		}
		copy(tail[:], x[n:])
		sum += expShiftedAsm(tail[:], shift)
		copy(x[n:], tail[:])
	}
	return sum
}

// expMin is the smallest difference ExpShifted takes the exp of: the AVX2
// form scales its polynomial by 2^n through the exponent's bits, which
// stays a normal number down to here.
const expMin = -86

// expShiftedGo is the portable form of ExpShifted.
func expShiftedGo(x []float32, shift float32) float32 {
	var sum float64
	for i, v := range x {
		var e float32
		if d := v - shift; d >= expMin {
			e = float32(math.Exp(float64(d)))
		}
		x[i] = e
		sum += float64(e)
	}
	return float32(sum)
}

// expConstants are the AVX2 form's constants, each in the 8 lanes of a
// vector that its instructions read from memory, in the order
// expShiftedAVX reads them: the smallest difference, log2(e), ln(2) in a
// part exact in float32 and the rest (Cody and Waite), the polynomial's
// coefficients of r^5 down to r^0 of (exp(r) - 1 - r) / r^2 (the Cephes
// library's expf) and 1.
var expConstants = func() (c [11][8]float32) {
	for i, v := range [...]float32{
		expMin, math.Log2E, 0.693359375, -2.12194440e-4,
		1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1,
		1,
	} {
		for j := range c[i] {
			c[i][j] = v
		}
	}
	return c
}()
