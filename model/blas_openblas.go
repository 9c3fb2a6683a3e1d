//go:build openblas

package model

import (
	"gonum.org/v1/netlib/blas/netlib"
	G "gorgonia.org/gorgonia"
)

// With the openblas build tag (and cgo, Debian's libopenblas-dev and
// CGO_LDFLAGS=-lopenblas), gorgonia's matrix products run on OpenBLAS
// instead of gonum's pure-Go BLAS. G.Use sets a process-wide default, so
// it happens once, at package initialisation, before any graph runs.
func init() { G.Use(netlib.Implementation{}) }

// BLAS names the matrix-product library in use.
const BLAS = "openblas"
