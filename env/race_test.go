//go:build race

package env

// raceEnabled says whether the race detector is on; the slowest property
// tests look at fewer positions then.
const raceEnabled = true
