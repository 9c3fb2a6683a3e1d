// Package kernel is the network's numeric code that does not need
// gorgonia: a register-blocked 6x16 float32 microkernel, in AVX2/FMA
// assembly (kernel_amd64.s) when golang.org/x/sys/cpu reports both and in
// portable Go otherwise or when DEATHSTACKS_NOASM=1 is set at start-up,
// and where the CPU has AVX-512 (unless DEATHSTACKS_NOAVX512=1) two of its
// tiles at once in AVX-512, a 6x32 tile with the same bits;
// a float32 Sgemm (packed panels around the microkernel) inside a gonum
// BLAS implementation; the 3x3 and 1x1 convolutions over channel-last
// activations with a zero border and a fully connected layer (Dense)
// that the fused gorgonia ops (model/internal/fused) call, forward and
// backward (the weight gradient's
// operands transposed and gathered in assembly too); Adam's update for the optimiser
// (model/internal/optim), in AVX assembly or portable Go with the same
// bits; the exps of the legal actions' softmax (ExpShifted, AVX2/FMA or
// float64's exp); and the FMA loop that measures the machine's peak (in
// the widest registers the CPU has).
//
// The assembly microkernels compute with subnormal numbers flushed to
// zero: MXCSR's flush-to-zero and denormals-are-zero bits are set for the
// call and the caller's MXCSR restored before it returns. An Intel core
// takes a microcode assist for every subnormal operand or result, and a
// trained network's small weights and gradients make them common enough
// to slow its evaluation fourfold and its training step threefold
// (train/EXPERIMENTS.md#subnormal-flush). The portable kernel keeps them:
// each product differs by less than 2^-126, below float32's resolution of
// any sum that is not itself that small.
//
// The portable kernel is the definition; tests check the assembly against
// it and all against float64 references, the AVX-512 kernel against the
// AVX2 one bit for bit, and CI runs them all three ways.
package kernel
