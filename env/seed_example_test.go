package env_test

import (
	"fmt"

	"github.com/deathstacks/deathstacks/env"
)

func ExampleMixSeed() {
	// Environment 2's episodes each get their own seed from the vector's
	// seed; the same seed gives the same episodes again.
	const seed = 42
	for episode := range uint64(3) {
		fmt.Printf("%#x\n", env.MixSeed(seed, 2, episode))
	}
	// Output:
	// 0xc75fcf19629a634e
	// 0xcdc70637301549e4
	// 0x5bb00010b4ef21ab
}

func ExampleGameSeed() {
	// The games of a self-play iteration are seeded by their numbers, so
	// they do not depend on the order they finish in.
	for i := range 3 {
		fmt.Printf("%#x\n", env.GameSeed(7, i))
	}
	// Output:
	// 0x28c142572d266ed3
	// 0x860e8b838df47ab5
	// 0xde383fbb428fcbe
}
