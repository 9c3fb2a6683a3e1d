// Package optim is the training step's optimiser, Adam or SGD with
// momentum over float32 weight arrays, written out rather than taken from
// gorgonia because gorgonia's solvers keep their state unexported and a
// resumed run must continue exactly: its State is plain arrays that the
// model package saves and restores. Adam's arithmetic is the kernel
// package's (AVX or portable Go, the same bits).
package optim
