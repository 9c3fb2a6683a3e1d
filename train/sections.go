package train

import "time"

// This file holds the configuration sections that belong to packages model
// and mcts, until train imports them. Each type has the same fields and
// yaml keys as its real counterpart (model.Config, model.ServerConfig,
// model.TrainConfig, mcts.Config), so switching is a matter of replacing
// this file with
//
//	type ModelConfig = model.Config
//	type ServerConfig = model.ServerConfig
//	type TrainStepConfig = model.TrainConfig
//	type SearchConfig = mcts.Config
//	func defaultModelConfig() ModelConfig         { return model.DefaultConfig() }
//	func defaultServerConfig() ServerConfig       { return model.DefaultServerConfig() }
//	func defaultTrainStepConfig() TrainStepConfig { return model.DefaultTrainConfig() }
//	func defaultSearchConfig() SearchConfig       { return mcts.DefaultConfig() }
//
// [Defaults] overrides what a training run needs differently, and the
// default-config test names any key where configs/default.yaml and the
// result part ways. A Validate that returns [*FieldError] values gets
// "model." (and so on) put in front of their paths; any other error is
// reported against the section as a whole.

// ModelConfig is the network's architecture.
type ModelConfig struct {
	// Blocks is the number of residual blocks after the input convolution.
	Blocks int `yaml:"blocks"`
	// Channels is the width of the trunk.
	Channels int `yaml:"channels"`
	// ValuePlanes is the number of 1x1 convolution planes feeding the value
	// head's hidden layer.
	ValuePlanes int `yaml:"value_planes"`
	// ValueHidden is the width of the value head's hidden layer.
	ValueHidden int `yaml:"value_hidden"`
}

func defaultModelConfig() ModelConfig {
	return ModelConfig{Blocks: 3, Channels: 32, ValuePlanes: 2, ValueHidden: 64}
}

// Validate reports every setting out of range.
func (m ModelConfig) Validate() error {
	var ch checker
	ch.between("blocks", m.Blocks, 0, 64)
	ch.between("channels", m.Channels, 1, 512)
	ch.between("value_planes", m.ValuePlanes, 1, 64)
	ch.between("value_hidden", m.ValueHidden, 1, 2048)
	return joinFieldErrors(ch.errs)
}

// ServerConfig tunes the batching server that evaluates positions for all
// the games in flight.
type ServerConfig struct {
	// MaxBatch is the largest batch one network run evaluates.
	MaxBatch int `yaml:"max_batch"`
	// Workers is the number of goroutines running the network.
	Workers int `yaml:"workers"`
	// FlushDelay is how long a worker with a partial batch waits for more
	// requests; 0 runs at once.
	FlushDelay time.Duration `yaml:"flush_delay"`
}

func defaultServerConfig() ServerConfig { return ServerConfig{MaxBatch: 32, Workers: 1} }

// Validate reports every setting out of range.
func (s ServerConfig) Validate() error {
	var ch checker
	ch.between("max_batch", s.MaxBatch, 1, 4096)
	ch.between("workers", s.Workers, 1, 64)
	ch.check(s.FlushDelay >= 0 && s.FlushDelay <= time.Second, "flush_delay", "is %v: want 0 to 1s", s.FlushDelay)
	return joinFieldErrors(ch.errs)
}

// The optimisers and learning-rate schedules of [TrainStepConfig].
const (
	optimizerAdam    = "adam"
	optimizerSGD     = "sgd"
	scheduleConstant = "constant"
	scheduleStep     = "step"
	scheduleCosine   = "cosine"
)

// TrainStepConfig is one training step: the optimiser, the loss weights
// and the learning-rate schedule.
type TrainStepConfig struct {
	// BatchSize is the number of samples of every step.
	BatchSize int `yaml:"batch_size"`
	// Optimizer is "adam" or "sgd" (with momentum).
	Optimizer string `yaml:"optimizer"`
	// LR is the peak learning rate.
	LR float64 `yaml:"lr"`
	// Momentum is SGD's momentum.
	Momentum float64 `yaml:"momentum"`
	// Beta1, Beta2 and Epsilon are Adam's.
	Beta1   float64 `yaml:"beta1"`
	Beta2   float64 `yaml:"beta2"`
	Epsilon float64 `yaml:"epsilon"`
	// WeightDecay is the L2 coefficient.
	WeightDecay float64 `yaml:"weight_decay"`
	// ValueWeight scales the value loss in the total.
	ValueWeight float64 `yaml:"value_weight"`
	// Schedule is "constant", "step" or "cosine".
	Schedule string `yaml:"schedule"`
	// WarmupSteps ramps the learning rate up linearly over the first steps.
	WarmupSteps int `yaml:"warmup_steps"`
	// StepEvery and StepGamma drive the "step" schedule: the rate is
	// multiplied by StepGamma every StepEvery steps.
	StepEvery int     `yaml:"step_every"`
	StepGamma float64 `yaml:"step_gamma"`
	// TotalSteps and MinLR drive the "cosine" schedule, which anneals the
	// rate from LR to MinLR over TotalSteps steps.
	TotalSteps int     `yaml:"total_steps"`
	MinLR      float64 `yaml:"min_lr"`
}

func defaultTrainStepConfig() TrainStepConfig {
	return TrainStepConfig{
		BatchSize: 64, Optimizer: optimizerAdam, LR: 1e-3, Momentum: 0.9,
		Beta1: 0.9, Beta2: 0.999, Epsilon: 1e-8, WeightDecay: 1e-4, ValueWeight: 1,
		Schedule: scheduleConstant, WarmupSteps: 100, StepEvery: 10000, StepGamma: 0.1,
		TotalSteps: 100000, MinLR: 1e-5,
	}
}

// Validate reports every setting out of range.
func (c TrainStepConfig) Validate() error {
	var ch checker
	ch.between("batch_size", c.BatchSize, 1, 8192)
	ch.oneOf("optimizer", c.Optimizer, optimizerAdam, optimizerSGD)
	ch.check(c.LR > 0 && c.LR <= 10, "lr", "is %v: want more than 0 and at most 10", c.LR)
	ch.check(c.Momentum >= 0 && c.Momentum < 1, "momentum", "is %v: want 0 or more and less than 1", c.Momentum)
	ch.check(c.Beta1 >= 0 && c.Beta1 < 1, "beta1", "is %v: want 0 or more and less than 1", c.Beta1)
	ch.check(c.Beta2 >= 0 && c.Beta2 < 1, "beta2", "is %v: want 0 or more and less than 1", c.Beta2)
	ch.check(c.Epsilon > 0 && c.Epsilon < 1, "epsilon", "is %v: want more than 0 and less than 1", c.Epsilon)
	ch.inRange("weight_decay", c.WeightDecay, 0, 1)
	ch.inRange("value_weight", c.ValueWeight, 0, 100)
	ch.oneOf("schedule", c.Schedule, scheduleConstant, scheduleStep, scheduleCosine)
	ch.atLeast("warmup_steps", c.WarmupSteps, 0)
	ch.atLeast("step_every", c.StepEvery, 1)
	ch.check(c.StepGamma > 0 && c.StepGamma <= 1, "step_gamma", "is %v: want more than 0 and at most 1", c.StepGamma)
	ch.atLeast("total_steps", c.TotalSteps, 1)
	ch.inRange("min_lr", c.MinLR, 0, c.LR)
	return joinFieldErrors(ch.errs)
}

// SearchConfig is the PUCT search of the self-play and evaluation players.
type SearchConfig struct {
	// Simulations is the number of simulations per move.
	Simulations int `yaml:"simulations"`
	// CPuct is the exploration constant (c_init when CPuctBase > 0).
	CPuct float64 `yaml:"c_puct"`
	// CPuctBase is c_base of AlphaZero's c_puct schedule; 0 keeps CPuct.
	CPuctBase float64 `yaml:"c_puct_base"`
	// FPUReduction values an unvisited child at the parent's value minus
	// this times the square root of the visited children's prior mass.
	FPUReduction float64 `yaml:"fpu_reduction"`
	// DirichletAlpha is the concentration of the root noise.
	DirichletAlpha float64 `yaml:"dirichlet_alpha"`
	// DirichletEpsilon is the weight of the root noise; 0 turns it off.
	DirichletEpsilon float64 `yaml:"dirichlet_epsilon"`
	// Temperature applies to the first TemperaturePlies plies: moves are
	// drawn with probability proportional to visits^(1/T).
	Temperature      float64 `yaml:"temperature"`
	TemperaturePlies int     `yaml:"temperature_plies"`
	// FinalTemperature applies after that; 0 plays the most visited move.
	FinalTemperature float64 `yaml:"final_temperature"`
	// BatchSize is the number of leaves one search gathers per evaluation.
	BatchSize int `yaml:"batch_size"`
	// VirtualLoss spreads one batch over several leaves.
	VirtualLoss float64 `yaml:"virtual_loss"`
	// ReuseTree keeps the subtree of the moves played between searches.
	ReuseTree bool `yaml:"reuse_tree"`
}

func defaultSearchConfig() SearchConfig {
	return SearchConfig{
		Simulations: 800, CPuct: 1.25, CPuctBase: 19652, FPUReduction: 0.25,
		DirichletAlpha: 0.3, BatchSize: 8, VirtualLoss: 1, ReuseTree: true,
	}
}

// Validate reports every setting out of range.
func (s SearchConfig) Validate() error {
	var ch checker
	ch.atLeast("simulations", s.Simulations, 1)
	ch.check(s.CPuct > 0 && s.CPuct <= 100, "c_puct", "is %v: want more than 0 and at most 100", s.CPuct)
	ch.inRange("c_puct_base", s.CPuctBase, 0, 1e9)
	ch.inRange("fpu_reduction", s.FPUReduction, 0, 10)
	ch.check(s.DirichletAlpha > 0 && s.DirichletAlpha <= 100, "dirichlet_alpha", "is %v: want more than 0 and at most 100", s.DirichletAlpha)
	ch.inRange("dirichlet_epsilon", s.DirichletEpsilon, 0, 1)
	ch.inRange("temperature", s.Temperature, 0, 100)
	ch.atLeast("temperature_plies", s.TemperaturePlies, 0)
	ch.inRange("final_temperature", s.FinalTemperature, 0, 100)
	ch.atLeast("batch_size", s.BatchSize, 1)
	ch.inRange("virtual_loss", s.VirtualLoss, 0, 100)
	return joinFieldErrors(ch.errs)
}
