package env

// The seeds of a reproducible run are derived from one seed by the
// functions here, so that each derivation is written once: the same seed
// gives the same episodes, games and tournaments in Go and through the
// library, whatever order they run in.

// Golden-ratio and splitmix64 multipliers: the increment of splitmix64's
// state and the constants of its finaliser.
const (
	goldenGamma = 0x9E3779B97F4A7C15
	mixMul1     = 0xBF58476D1CE4E5B9
	mixMul2     = 0x94D049BB133111EB
)

// MixSeed derives an independent seed from a base seed and two numbers,
// such as an environment and its episode, or a game and a side: the
// splitmix64 finaliser of seed ^ (a+1)*0x9E3779B97F4A7C15 ^
// (b+1)*0xBF58476D1CE4E5B9. Nearby arguments give unrelated seeds.
func MixSeed(seed, a, b uint64) uint64 {
	return finalize(seed ^ (a+1)*goldenGamma ^ (b+1)*mixMul1)
}

// GameSeed derives the seed of self-play game i from a run's seed (and,
// with negative i, the seeds of the run's iterations): one xor-shift,
// multiply and xor-shift of seed ^ (i+1)*0x9E3779B97F4A7C15, a lighter
// finaliser than [MixSeed]'s, which recorded runs' games depend on.
func GameSeed(seed uint64, i int) uint64 {
	x := seed ^ uint64(i+1)*goldenGamma
	x ^= x >> 31
	x *= mixMul1
	return x ^ x>>29
}

// finalize is splitmix64's output function, a bijection that spreads
// every input bit over the whole output.
func finalize(x uint64) uint64 {
	x = (x ^ x>>30) * mixMul1
	x = (x ^ x>>27) * mixMul2
	return x ^ x>>31
}
