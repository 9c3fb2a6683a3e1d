// Package cputime reads the CPU time the process has used, which a
// training run records beside its wall-clock time.
package cputime
