package train

import (
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/model"
)

// The config sections that belong to other packages: their YAML keys and
// checks live beside the code that uses them.
type (
	// ModelConfig is the network's architecture (section "model").
	ModelConfig = model.Config
	// ServerConfig is the batching server (section "server").
	ServerConfig = model.ServerConfig
	// TrainStepConfig is one training step: optimiser, loss weights and
	// learning-rate schedule (inlined in section "optim").
	TrainStepConfig = model.TrainConfig
	// SearchConfig is the tree search of self-play (section "search").
	SearchConfig = mcts.Config
)

func defaultModelConfig() ModelConfig         { return model.DefaultConfig() }
func defaultServerConfig() ServerConfig       { return model.DefaultServerConfig() }
func defaultTrainStepConfig() TrainStepConfig { return model.DefaultTrainConfig() }
func defaultSearchConfig() SearchConfig       { return mcts.DefaultConfig() }
