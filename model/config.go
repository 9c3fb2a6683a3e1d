package model

import (
	"fmt"
	"math"
	"time"

	"github.com/deathstacks/deathstacks/configs"
)

// Config is the network's architecture. Decode YAML onto [DefaultConfig] so
// that keys left out keep their defaults.
type Config struct {
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

// Limits of [Config.Validate]: generous for this board, but small enough
// that a corrupted file cannot make Load allocate without bound.
const (
	maxBlocks      = 64
	maxChannels    = 512
	maxValuePlanes = 64
	maxValueHidden = 2048
)

// DefaultConfig is the architecture chosen by measurement for fast
// self-play on two cores (see the package documentation).
func DefaultConfig() Config {
	return Config{Blocks: 3, Channels: 32, ValuePlanes: 2, ValueHidden: 64}
}

// Validate reports the first out-of-range field, naming its YAML key.
func (c Config) Validate() error {
	for _, f := range []struct {
		key       string
		v, lo, hi int
	}{
		{"blocks", c.Blocks, 0, maxBlocks},
		{"channels", c.Channels, 1, maxChannels},
		{"value_planes", c.ValuePlanes, 1, maxValuePlanes},
		{"value_hidden", c.ValueHidden, 1, maxValueHidden},
	} {
		if f.v < f.lo || f.v > f.hi {
			return configs.Errorf(f.key, "is %d: want %d to %d", f.v, f.lo, f.hi)
		}
	}
	return nil
}

// String is the short form used in messages, e.g. "3x32 (value 2/64)".
func (c Config) String() string {
	return fmt.Sprintf("%dx%d (value %d/%d)", c.Blocks, c.Channels, c.ValuePlanes, c.ValueHidden)
}

// ServerConfig tunes a [Server]. Decode YAML onto [DefaultServerConfig].
type ServerConfig struct {
	// MaxBatch is the largest batch one network run evaluates.
	MaxBatch int `yaml:"max_batch"`
	// Workers is the number of goroutines running the network, each with
	// its own compiled graphs.
	Workers int `yaml:"workers"`
	// FlushDelay is how long a worker with a partial batch and an empty
	// queue waits for more requests before running it; 0 runs at once.
	FlushDelay time.Duration `yaml:"flush_delay"`
}

// DefaultServerConfig returns the settings measured to keep the server
// close to the raw throughput of its batch size (see the package
// documentation).
func DefaultServerConfig() ServerConfig {
	return ServerConfig{MaxBatch: 32, Workers: 1, FlushDelay: 0}
}

// Validate reports the first out-of-range field, naming its YAML key.
func (c ServerConfig) Validate() error {
	switch {
	case c.MaxBatch < 1 || c.MaxBatch > 4096:
		return configs.Errorf("max_batch", "is %d: want 1 to 4096", c.MaxBatch)
	case c.Workers < 1 || c.Workers > 64:
		return configs.Errorf("workers", "is %d: want 1 to 64", c.Workers)
	case c.FlushDelay < 0 || c.FlushDelay > time.Second:
		return configs.Errorf("flush_delay", "is %v: want 0 to 1s", c.FlushDelay)
	}
	return nil
}

// Optimiser names.
const (
	Adam = "adam"
	SGD  = "sgd" // with momentum
)

// Learning-rate schedules.
const (
	// ScheduleConstant keeps the learning rate at LR after warm-up.
	ScheduleConstant = "constant"
	// ScheduleStep multiplies it by StepGamma every StepEvery steps.
	ScheduleStep = "step"
	// ScheduleCosine anneals it from LR to MinLR over TotalSteps.
	ScheduleCosine = "cosine"
)

// TrainConfig is the training step's settings. Decode YAML onto
// [DefaultTrainConfig]. Unlike [Config], none of it is saved with a
// network: a resumed run takes it from its configuration.
type TrainConfig struct {
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
	// WeightDecay is the L2 coefficient: the loss gains WeightDecay times
	// the sum of the squared weights (not the biases).
	WeightDecay float64 `yaml:"weight_decay"`
	// ValueWeight scales the value loss in the total.
	ValueWeight float64 `yaml:"value_weight"`
	// Schedule is "constant", "step" or "cosine".
	Schedule string `yaml:"schedule"`
	// WarmupSteps ramps the learning rate linearly from 0 over the first
	// steps.
	WarmupSteps int `yaml:"warmup_steps"`
	// StepEvery and StepGamma drive the "step" schedule.
	StepEvery int     `yaml:"step_every"`
	StepGamma float64 `yaml:"step_gamma"`
	// TotalSteps and MinLR drive the "cosine" schedule; after TotalSteps
	// the rate stays at MinLR.
	TotalSteps int     `yaml:"total_steps"`
	MinLR      float64 `yaml:"min_lr"`
}

// DefaultTrainConfig returns Adam at 1e-3 with a short warm-up.
func DefaultTrainConfig() TrainConfig {
	return TrainConfig{
		BatchSize:   64,
		Optimizer:   Adam,
		LR:          1e-3,
		Momentum:    0.9,
		Beta1:       0.9,
		Beta2:       0.999,
		Epsilon:     1e-8,
		WeightDecay: 1e-4,
		ValueWeight: 1,
		Schedule:    ScheduleConstant,
		WarmupSteps: 100,
		StepEvery:   10000,
		StepGamma:   0.1,
		TotalSteps:  100000,
		MinLR:       1e-5,
	}
}

// Validate reports the first bad field, naming its YAML key.
func (c TrainConfig) Validate() error {
	bad := func(key string, v any, want string) error {
		return configs.Errorf(key, "is %v: want %s", v, want)
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case c.BatchSize < 1 || c.BatchSize > 8192:
		return bad("batch_size", c.BatchSize, "1 to 8192")
	case c.Optimizer != Adam && c.Optimizer != SGD:
		return configs.Errorf("optimizer", "is %q: want %q or %q", c.Optimizer, Adam, SGD)
	case !finite(c.LR) || c.LR <= 0:
		return bad("lr", c.LR, "more than 0")
	case !finite(c.Momentum) || c.Momentum < 0 || c.Momentum >= 1:
		return bad("momentum", c.Momentum, "0 or more, less than 1")
	case !finite(c.Beta1) || c.Beta1 < 0 || c.Beta1 >= 1:
		return bad("beta1", c.Beta1, "0 or more, less than 1")
	case !finite(c.Beta2) || c.Beta2 < 0 || c.Beta2 >= 1:
		return bad("beta2", c.Beta2, "0 or more, less than 1")
	case !finite(c.Epsilon) || c.Epsilon <= 0:
		return bad("epsilon", c.Epsilon, "more than 0")
	case !finite(c.WeightDecay) || c.WeightDecay < 0:
		return bad("weight_decay", c.WeightDecay, "0 or more")
	case !finite(c.ValueWeight) || c.ValueWeight < 0:
		return bad("value_weight", c.ValueWeight, "0 or more")
	case c.WarmupSteps < 0:
		return bad("warmup_steps", c.WarmupSteps, "0 or more")
	}
	switch c.Schedule {
	case ScheduleConstant:
	case ScheduleStep:
		if c.StepEvery < 1 {
			return bad("step_every", c.StepEvery, "1 or more")
		}
		if !finite(c.StepGamma) || c.StepGamma <= 0 || c.StepGamma > 1 {
			return bad("step_gamma", c.StepGamma, "more than 0, at most 1")
		}
	case ScheduleCosine:
		if c.TotalSteps < 1 {
			return bad("total_steps", c.TotalSteps, "1 or more")
		}
		if !finite(c.MinLR) || c.MinLR < 0 || c.MinLR > c.LR {
			return bad("min_lr", c.MinLR, "0 to lr")
		}
	default:
		return configs.Errorf("schedule", "is %q: want %q, %q or %q", c.Schedule, ScheduleConstant, ScheduleStep, ScheduleCosine)
	}
	return nil
}

// LearningRate is the rate of the step after step steps have been taken.
func (c TrainConfig) LearningRate(step int64) float64 {
	lr := c.LR
	switch c.Schedule {
	case ScheduleStep:
		lr *= math.Pow(c.StepGamma, float64(step/int64(c.StepEvery)))
	case ScheduleCosine:
		f := min(1, float64(step)/float64(c.TotalSteps))
		lr = c.MinLR + (c.LR-c.MinLR)*0.5*(1+math.Cos(math.Pi*f))
	}
	if step < int64(c.WarmupSteps) {
		lr *= float64(step+1) / float64(c.WarmupSteps)
	}
	return lr
}
