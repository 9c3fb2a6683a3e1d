package main

import (
	"github.com/deathstacks/deathstacks/train/binding"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// selfPlayRun plays the Go trainer's self-play games with the caller's
// evaluator (binding.SelfPlay), the slots of a stepRun.
type selfPlayRun struct {
	*binding.SelfPlay
	// cfg is the settings.
	cfg runconfig.Config
	// q is the run under way or the last one.
	q *stepRun
}

func (r *selfPlayRun) leaves() *stepRun { return r.q }

func (r *selfPlayRun) leafLimit() int { return r.cfg.Search.BatchSize }

func (r *selfPlayRun) close() error {
	stopRun(r.q)
	return nil
}

// newSelfPlayRun reads a JSON object of keyword settings over the
// trainer's defaults (runconfig.SelfPlaySettings).
func newSelfPlayRun(settings string) (*selfPlayRun, error) {
	sp, err := binding.NewSelfPlay(settings)
	if err != nil {
		return nil, err
	}
	return &selfPlayRun{SelfPlay: sp, cfg: sp.Config()}, nil
}

// start begins n games, seeded from seed as the trainer seeds an
// iteration's games; the caller then evaluates their leaves
// (ds_batch_round, or ds_batch_next and ds_batch_feed) until the run
// ends.
func (r *selfPlayRun) start(n int64, seed uint64) (int64, error) {
	run, err := r.Start(n, seed)
	if err != nil {
		return 0, err
	}
	r.q = &stepRun{Run: run}
	return n, nil
}
