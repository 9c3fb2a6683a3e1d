// Package kernel is the network's numeric code that does not need
// gorgonia: a register-blocked 6x16 float32 microkernel, in AVX2/FMA
// assembly (kernel_amd64.s) when golang.org/x/sys/cpu reports both and in
// portable Go otherwise or when DEATHSTACKS_NOASM=1 is set at start-up;
// a float32 Sgemm (packed panels around the microkernel) inside a gonum
// BLAS implementation; the 3x3 and 1x1 convolutions over channel-last
// activations with a zero border that the fused gorgonia ops
// (model/internal/fused) call, forward and backward (the weight gradient's
// operands transposed and gathered in assembly too); Adam's update for the optimiser
// (model/internal/optim), in AVX assembly or portable Go with the same
// bits; and the FMA loop that measures the machine's peak.
//
// The portable kernel is the definition; tests check the assembly against
// it and both against float64 references, and CI runs them both ways.
package kernel
