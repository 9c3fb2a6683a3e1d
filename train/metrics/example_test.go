package metrics_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/deathstacks/deathstacks/train/metrics"
)

// A run appends one line per iteration to its metrics.jsonl; resuming
// from an earlier checkpoint cuts the later ones off, and Read gives the
// log back (a reader such as a notebook can read the JSON lines itself).
func Example() {
	dir, err := os.MkdirTemp("", "metrics")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, metrics.File)
	for i := 1; i <= 3; i++ {
		m := metrics.Iteration{Iteration: i, PolicyLoss: 3 - 0.5*float64(i), SelfPlayGames: 96}
		if err := metrics.Append(path, m); err != nil {
			fmt.Println(err)
			return
		}
	}
	// A run resumed from iteration 2's checkpoint plays iteration 3 again.
	if err := metrics.Truncate(path, 2); err != nil {
		fmt.Println(err)
		return
	}
	ms, err := metrics.Read(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range ms {
		fmt.Printf("iteration %d: policy loss %.1f, %d games\n", m.Iteration, m.PolicyLoss, m.SelfPlayGames)
	}
	// Output:
	// iteration 1: policy loss 2.5, 96 games
	// iteration 2: policy loss 2.0, 96 games
}
