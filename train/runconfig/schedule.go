package runconfig

import "github.com/deathstacks/deathstacks/model"

// The learning-rate schedule of a run with optim.total_steps 0 follows the
// run rather than a step count: the cosine's progress is the run's, so
// that it ends at min_lr when the run ends on a machine of any speed.

// FollowsRun reports whether the cosine's length is the run's (total_steps
// 0) rather than a fixed number of steps.
func (c OptimConfig) FollowsRun() bool { return c.TotalSteps == 0 }

// TrainerConfig is the training step's settings as package model takes them:
// a schedule that follows the run gets a placeholder length, which
// [model.Trainer.SetProgress] replaces before every step.
func (c OptimConfig) TrainerConfig() model.TrainConfig {
	tc := c.TrainConfig
	if c.FollowsRun() {
		tc.TotalSteps = 1
	}
	return tc
}

// RunProgress is how far a run is through its plan, from 0: the larger of
// its training time over its time limit and its iterations over its
// target, of those it has. It passes 1 in the run's last iteration.
func (c Config) RunProgress(elapsedSec, iterations float64) float64 {
	var p float64
	if c.TimeLimit > 0 {
		p = elapsedSec / c.TimeLimit.Seconds()
	}
	if c.Iterations > 0 {
		p = max(p, iterations/float64(c.Iterations))
	}
	return max(0, p)
}

// SchedulePlan maps a run's progress to the cosine's. A new run's is the
// identity. A resumed run starts where its schedule stopped (from, kept in
// the checkpoint) at the progress its plan gives the resume point (at),
// and goes on linearly to the end of the cosine at the end of the run: a
// run resumed with the same plan goes on as if never stopped, and one
// given more iterations or a longer time limit anneals what was left of
// its cosine over the longer rest (one that had reached min_lr stays
// there).
type SchedulePlan struct{ from, at float64 }

// Progress is the cosine's progress at run progress q.
func (s SchedulePlan) Progress(q float64) float64 {
	switch {
	case q <= s.at:
		return s.from
	case s.at >= 1:
		return max(1, s.from)
	}
	return s.from + (1-s.from)*(q-s.at)/(1-s.at)
}

// ResumePlan is the plan of a run resumed at run progress at whose
// schedule had reached from (0 in a checkpoint written before schedules
// followed runs: the plan goes on from at, as if it always had).
func ResumePlan(from, at float64, iteration int) SchedulePlan {
	if from == 0 && iteration > 0 {
		from = min(1, at)
	}
	return SchedulePlan{from: from, at: at}
}
