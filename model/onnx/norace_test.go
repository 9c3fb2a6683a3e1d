//go:build !race

package onnx_test

// raceEnabled says whether the race detector is on; the parity test then
// runs fewer positions through gonnx (whose runs it slows many times).
const raceEnabled = false
