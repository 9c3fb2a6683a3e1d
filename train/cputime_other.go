//go:build !unix

package train

// processCPUSec is 0 where the process's CPU time is not read: the run
// records no CPU time there.
func processCPUSec() float64 { return 0 }
