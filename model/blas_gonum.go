//go:build !openblas

package model

// BLAS names the matrix-product library in use: gonum's pure-Go BLAS,
// unless built with the openblas tag.
const BLAS = "gonum"
