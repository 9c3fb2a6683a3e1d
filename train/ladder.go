package train

import (
	"fmt"
	"path/filepath"

	"github.com/deathstacks/deathstacks/train/checkpoint"
	"github.com/deathstacks/deathstacks/train/ladder"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// LadderRun reads what a ladder needs from a run directory: the run's
// config (for its rules and evaluation openings), its network snapshots
// with the search each plays with, resolved as for every command (see
// loadTrained: a snapshot's own settings, else the run's config.yaml,
// turned to a player's), and their training times.
func LadderRun(dir string) (ladder.Run, error) {
	cfg, err := runconfig.LoadSaved(filepath.Join(dir, runconfig.File))
	if err != nil {
		return ladder.Run{}, fmt.Errorf("ladder: run %s: %w", dir, err)
	}
	all, err := checkpoint.ListNets(dir)
	if err != nil {
		return ladder.Run{}, fmt.Errorf("ladder: run %s: %w", dir, err)
	}
	if len(all) == 0 {
		return ladder.Run{}, fmt.Errorf("ladder: run %s has no network snapshots (%s)", dir, filepath.Join(dir, checkpoint.NetsDir, "net-*"+checkpoint.NetExt))
	}
	elapsed, err := metrics.TrainingTime(filepath.Join(dir, metrics.File))
	if err != nil {
		return ladder.Run{}, fmt.Errorf("ladder: %w", err)
	}
	run := ladder.Run{Dir: dir, Rules: cfg.Env.Rules, OpeningPlies: cfg.Eval.OpeningPlies}
	for _, s := range all {
		t, err := loadTrained(s.Path)
		if err != nil {
			return ladder.Run{}, fmt.Errorf("ladder: run %s: %w", dir, err)
		}
		sec, ok := elapsed[s.Iteration]
		run.Snapshots = append(run.Snapshots, ladder.Snapshot{Iteration: s.Iteration, Path: s.Path, Search: t.search, ElapsedSec: sec, HasElapsed: ok})
	}
	return run, nil
}
