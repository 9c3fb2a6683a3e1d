package model

import (
	"math"
	"runtime"
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
	// The auxiliary heads (KataGo's, Wu 2019), off by default: heads that
	// only training uses, with a loss of their own (TrainConfig's weights)
	// that shapes the trunk. Inference never computes them; the network
	// file keeps their weights, and an exported player may drop them
	// ([Network.WithoutAux]).
	//
	// ReplyHead predicts the opponent's reply: the policy target of the
	// next position (a 1x1 convolution to one plane per (direction,
	// count) and a bias per plane).
	ReplyHead bool `yaml:"reply_head"`
	// OwnershipHead predicts the final owner of each square from the side
	// to move's view, +1 own stack on top, -1 the opponent's, 0 empty (a
	// 1x1 convolution to one plane through tanh).
	OwnershipHead bool `yaml:"ownership_head"`
	// ScoreHead predicts the material lead of the side to move on the
	// game's final board, tanh(lead / 60) as adjudication scales it (a 1x1 convolution to one
	// plane, ReLU, a fully connected layer to one output through tanh).
	ScoreHead bool `yaml:"score_head"`
}

// HasAux says whether the network has an auxiliary head.
func (c Config) HasAux() bool { return c.ReplyHead || c.OwnershipHead || c.ScoreHead }

// auxBits are c's auxiliary heads as the network file stores them.
func (c Config) auxBits() uint32 {
	var bits uint32
	for i, on := range []bool{c.ReplyHead, c.OwnershipHead, c.ScoreHead} {
		if on {
			bits |= 1 << i
		}
	}
	return bits
}

// auxAll is every auxiliary head's bit.
const auxAll = 7

// withAuxBits returns c with the auxiliary heads of bits.
func (c Config) withAuxBits(bits uint32) Config {
	c.ReplyHead, c.OwnershipHead, c.ScoreHead = bits&1 != 0, bits&2 != 0, bits&4 != 0
	return c
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

// Validate reports every field out of range, each as a
// [*configs.FieldError] naming its YAML key.
func (c Config) Validate() error {
	var ch configs.Checker
	ch.Between("blocks", c.Blocks, 0, maxBlocks)
	ch.Between("channels", c.Channels, 1, maxChannels)
	ch.Between("value_planes", c.ValuePlanes, 1, maxValuePlanes)
	ch.Between("value_hidden", c.ValueHidden, 1, maxValueHidden)
	return ch.Err()
}

// String is the short form used in messages, e.g. "3x32 (value 2/64)".
func (c Config) String() string { return c.arch().String() }

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
// documentation), with a worker per core (GOMAXPROCS, at most 64): a
// server that many searches share is what keeps every core busy, and a
// lone search's batches are split among them.
func DefaultServerConfig() ServerConfig {
	return ServerConfig{MaxBatch: 32, Workers: min(runtime.GOMAXPROCS(0), 64), FlushDelay: 0}
}

// Validate reports every field out of range, each as a
// [*configs.FieldError] naming its YAML key.
func (c ServerConfig) Validate() error {
	var ch configs.Checker
	ch.Between("max_batch", c.MaxBatch, 1, 4096)
	ch.Between("workers", c.Workers, 1, 64)
	ch.Check(c.FlushDelay >= 0 && c.FlushDelay <= time.Second, "flush_delay", "is %v: want 0 to 1s", c.FlushDelay)
	return ch.Err()
}

// Optimiser names.
const (
	adamName  = "adam"
	adamWName = "adamw" // Adam with decoupled weight decay
	sgdName   = "sgd"   // with momentum
)

// Learning-rate schedules.
const (
	// scheduleConstant keeps the learning rate at LR after warm-up.
	scheduleConstant = "constant"
	// scheduleStep multiplies it by StepGamma every StepEvery steps.
	scheduleStep = "step"
	// scheduleCosine anneals it from LR to MinLR over TotalSteps.
	scheduleCosine = "cosine"
)

// TrainConfig is the training step's settings. Decode YAML onto
// [DefaultTrainConfig]. Unlike [Config], none of it is saved with a
// network: a resumed run takes it from its configuration.
type TrainConfig struct {
	// BatchSize is the number of samples of every step.
	BatchSize int `yaml:"batch_size"`
	// Optimizer is "adam", "adamw" (Adam with decoupled weight decay) or
	// "sgd" (with momentum). Adam and AdamW keep the same state: a run
	// may switch between them.
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
	// the sum of the squared weights (not the biases). With "adamw" it is
	// the decoupled decay instead, as PyTorch's AdamW has it: every step
	// multiplies those weights by 1 - LR*WeightDecay at the step's
	// learning rate, and the loss has no L2 term. Under Adam an L2 term's
	// gradient is normalised like the rest, so a weight whose loss
	// gradient is zero (a dead unit's) falls by the whole learning rate
	// every step; under AdamW it falls by a factor.
	WeightDecay float64 `yaml:"weight_decay"`
	// ValueWeight scales the value loss in the total.
	ValueWeight float64 `yaml:"value_weight"`
	// Schedule is "constant", "step" or "cosine".
	Schedule string `yaml:"schedule"`
	// WarmupSteps ramps the learning rate linearly from 0 over the first
	// steps. The schedule counts the steps of the optimiser state, not
	// the network's: a trained network given a fresh one (a run started
	// from it) goes through it from the start.
	WarmupSteps int `yaml:"warmup_steps"`
	// StepEvery and StepGamma drive the "step" schedule.
	StepEvery int     `yaml:"step_every"`
	StepGamma float64 `yaml:"step_gamma"`
	// TotalSteps and MinLR drive the "cosine" schedule; after TotalSteps
	// the rate stays at MinLR.
	TotalSteps int     `yaml:"total_steps"`
	MinLR      float64 `yaml:"min_lr"`
	// ReplyWeight, OwnershipWeight and ScoreWeight scale the losses of the
	// auxiliary heads (see [Config]) in the total, when the network has
	// them: the reply's cross-entropy (KataGo: 0.15), the mean squared
	// error of the ownership over the squares and of the score.
	ReplyWeight     float64 `yaml:"reply_weight"`
	OwnershipWeight float64 `yaml:"ownership_weight"`
	ScoreWeight     float64 `yaml:"score_weight"`
	// SoftPolicyWeight adds KataGo's soft policy target: the cross-entropy
	// of the policy head against target^(1/SoftPolicyTemperature),
	// renormalised, which teaches the order of the moves the search
	// rejected. 0 (the default) is off; KataGo weighs it 8 at T=4.
	SoftPolicyWeight      float64 `yaml:"soft_policy_weight"`
	SoftPolicyTemperature float64 `yaml:"soft_policy_temperature"`
}

// DefaultTrainConfig returns Adam at 1e-3 with a short warm-up.
func DefaultTrainConfig() TrainConfig {
	return TrainConfig{
		BatchSize:   64,
		Optimizer:   adamName,
		LR:          1e-3,
		Momentum:    0.9,
		Beta1:       0.9,
		Beta2:       0.999,
		Epsilon:     1e-8,
		WeightDecay: 1e-4,
		ValueWeight: 1,
		Schedule:    scheduleConstant,
		WarmupSteps: 100,
		StepEvery:   10000,
		StepGamma:   0.1,
		TotalSteps:  100000,
		MinLR:       1e-5,

		ReplyWeight:           0.15,
		OwnershipWeight:       0.15,
		ScoreWeight:           0.15,
		SoftPolicyWeight:      0,
		SoftPolicyTemperature: 4,
	}
}

// Validate reports every bad field, each as a [*configs.FieldError]
// naming its YAML key; the settings of a schedule are checked with it.
func (c TrainConfig) Validate() error {
	var ch configs.Checker
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	// check records key unless ok, saying what is wanted.
	check := func(ok bool, key string, v any, want string) { ch.Check(ok, key, "is %v: want %s", v, want) }
	ch.Between("batch_size", c.BatchSize, 1, 8192)
	ch.Check(c.Optimizer == adamName || c.Optimizer == adamWName || c.Optimizer == sgdName, "optimizer", "is %q: want %q, %q or %q", c.Optimizer, adamName, adamWName, sgdName)
	check(finite(c.LR) && c.LR > 0, "lr", c.LR, "more than 0")
	check(finite(c.Momentum) && c.Momentum >= 0 && c.Momentum < 1, "momentum", c.Momentum, "0 or more, less than 1")
	check(finite(c.Beta1) && c.Beta1 >= 0 && c.Beta1 < 1, "beta1", c.Beta1, "0 or more, less than 1")
	check(finite(c.Beta2) && c.Beta2 >= 0 && c.Beta2 < 1, "beta2", c.Beta2, "0 or more, less than 1")
	check(finite(c.Epsilon) && c.Epsilon > 0, "epsilon", c.Epsilon, "more than 0")
	check(finite(c.WeightDecay) && c.WeightDecay >= 0, "weight_decay", c.WeightDecay, "0 or more")
	check(finite(c.ValueWeight) && c.ValueWeight >= 0, "value_weight", c.ValueWeight, "0 or more")
	ch.AtLeast("warmup_steps", c.WarmupSteps, 0)
	for _, w := range []struct {
		key string
		v   float64
	}{{"reply_weight", c.ReplyWeight}, {"ownership_weight", c.OwnershipWeight}, {"score_weight", c.ScoreWeight}, {"soft_policy_weight", c.SoftPolicyWeight}} {
		check(finite(w.v) && w.v >= 0, w.key, w.v, "0 or more")
	}
	check(finite(c.SoftPolicyTemperature) && c.SoftPolicyTemperature >= 1 && c.SoftPolicyTemperature <= 100, "soft_policy_temperature", c.SoftPolicyTemperature, "1 to 100")
	switch c.Schedule {
	case scheduleConstant:
	case scheduleStep:
		ch.AtLeast("step_every", c.StepEvery, 1)
		check(finite(c.StepGamma) && c.StepGamma > 0 && c.StepGamma <= 1, "step_gamma", c.StepGamma, "more than 0, at most 1")
	case scheduleCosine:
		ch.AtLeast("total_steps", c.TotalSteps, 1)
		if !ch.Reported("lr") { // a bad lr is one problem, not min_lr's too
			check(finite(c.MinLR) && c.MinLR >= 0 && c.MinLR <= c.LR, "min_lr", c.MinLR, "0 to lr")
		}
	default:
		ch.Check(false, "schedule", "is %q: want %q, %q or %q", c.Schedule, scheduleConstant, scheduleStep, scheduleCosine)
	}
	return ch.Err()
}

// learningRate is the rate of the step after step steps have been taken
// with the optimiser state: the schedule is the optimiser's, so that a
// trained network given a fresh one (a run started from it) follows it
// from the start, warm-up included, while its Adam moments fill.
func (c TrainConfig) learningRate(step int64) float64 {
	lr := c.LR
	switch c.Schedule {
	case scheduleStep:
		lr *= math.Pow(c.StepGamma, float64(step/int64(c.StepEvery)))
	case scheduleCosine:
		f := min(1, float64(step)/float64(c.TotalSteps))
		lr = c.MinLR + (c.LR-c.MinLR)*0.5*(1+math.Cos(math.Pi*f))
	}
	if step < int64(c.WarmupSteps) {
		lr *= float64(step+1) / float64(c.WarmupSteps)
	}
	return lr
}
