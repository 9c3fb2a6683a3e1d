package stepped_test

import (
	"fmt"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/stepped"
)

// startSearches returns n works, each a search of the start position
// with cfg (seeded by its number), and the decisions they fill.
func startSearches(cfg mcts.Config, n int) ([]stepped.Work, []mcts.Decision) {
	decisions := make([]mcts.Decision, n)
	works := make([]stepped.Work, n)
	for i := range works {
		works[i] = func(eval mcts.Evaluator) error {
			p, err := mcts.NewPUCTPlayer(eval, cfg, uint64(i))
			if err != nil {
				return err
			}
			decisions[i], err = p.Choose(env.NewGame(env.DefaultRules()))
			return err
		}
	}
	return works, decisions
}

func ExampleRun() {
	// Three searches of the start position, guided by the caller's own
	// network, which evaluates each round's leaves in one batch: here a
	// network that gives every legal action the same logit and every
	// position the value 0. A caller of a Go network passes
	// model.LegalSoftmax as the priors.
	cfg := mcts.DefaultConfig()
	cfg.Simulations = 100
	works, decisions := startSearches(cfg, 3)
	uniform := func(dst, _ []float32, legal []env.Action) error {
		for j := range legal {
			dst[j] = 1 / float32(len(legal))
		}
		return nil
	}
	run := stepped.New(works, cfg.BatchSize, uniform)

	// The caller's buffers: room for every search's leaves at once.
	capacity := len(works) * cfg.BatchSize
	obs := make([]float32, capacity*env.ObservationSize)
	mask := make([]bool, capacity*env.NumActions)
	logits := make([]float32, capacity*env.NumActions)
	values := make([]float32, capacity)
	batches, n := 0, 0
	for {
		var err error
		// Feed the last batch's results, take the next batch of leaves.
		n, err = run.Round(logits[:n*env.NumActions], values[:n], obs, mask)
		if err != nil {
			fmt.Println(err)
			return
		}
		if n == 0 {
			break // every search has ended
		}
		batches++
		// The network reads obs[:n*env.ObservationSize] and
		// mask[:n*env.NumActions] and writes logits[:n*env.NumActions]
		// and values[:n]; this one's stay 0.
	}
	for _, d := range decisions {
		fmt.Println(d.Simulations, len(d.Visits))
	}
	fmt.Println(batches > 1)
	// Output:
	// 100 48
	// 100 48
	// 100 48
	// true
}

func ExampleDrive() {
	// Eight searches of the start position, batched on two lanes, each
	// with an evaluator of its own (a Go network gives each lane a
	// model.Engine): here one that makes every legal move equally likely
	// and every position even.
	cfg := mcts.DefaultConfig()
	cfg.Simulations = 64
	works, decisions := startSearches(cfg, 8)
	lanes := []mcts.Evaluator{mcts.UniformEvaluator{}, mcts.UniformEvaluator{}}
	stats, err := stepped.Drive(works, cfg.BatchSize, lanes)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(decisions[0].Simulations, decisions[7].Simulations)
	// More positions a batch than one search's leaves: the searches'
	// leaves went to the network together.
	fmt.Println(stats.Positions/stats.Batches > int64(cfg.BatchSize))
	// Output:
	// 64 64
	// true
}
