//go:build !openblas

package model

import (
	"github.com/deathstacks/deathstacks/model/internal/kernel"
	G "gorgonia.org/gorgonia"
)

// Without the openblas tag, gorgonia's matrix products (the heads' fully
// connected layers, and every product of training) run on gonum's BLAS
// with the kernel package's Sgemm. G.Use sets a process-wide default,
// so it happens once, at package initialisation, before any graph runs.
func init() { G.Use(kernel.BLAS{}) }

// BLAS names the matrix-product library in use: gonum's pure-Go BLAS with
// the kernel package's Sgemm, unless built with the openblas tag.
const BLAS = "gonum+sgemm"
