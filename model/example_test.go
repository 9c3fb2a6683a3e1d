package model_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
)

// startSample is the start position with a uniform policy target and a won
// result.
func startSample() model.Sample {
	rules := env.DefaultRules()
	p := env.StartPosition()
	obs := make([]float32, env.ObservationSize)
	env.EncodeObservation(obs, &p, rules, 1)
	legal := p.LegalActions(nil, rules.TooTall)
	policy := make([]float32, len(legal))
	for i := range policy {
		policy[i] = 1 / float32(len(legal))
	}
	return model.Sample{Obs: obs, Legal: legal, Policy: policy, Value: 1}
}

func Example() {
	net, err := model.New(model.DefaultConfig(), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := startSample()
	priors := [][]float32{make([]float32, len(s.Legal))}
	values := make([]float32, 1)
	if err := net.Evaluate(s.Obs, [][]env.Action{s.Legal}, priors, values); err != nil {
		fmt.Println(err)
		return
	}
	var sum float32
	for _, p := range priors[0] {
		sum += p
	}
	fmt.Printf("%d legal moves, priors sum to %.3f, value in [-1, 1]: %v\n",
		len(s.Legal), sum, math.Abs(float64(values[0])) <= 1)
	// Output: 48 legal moves, priors sum to 1.000, value in [-1, 1]: true
}

func ExampleTrainer_Step() {
	net, _ := model.New(model.Config{Blocks: 1, Channels: 8, ValuePlanes: 1, ValueHidden: 8}, rand.New(rand.NewPCG(1, 2)))
	cfg := model.DefaultTrainConfig()
	cfg.BatchSize, cfg.LR, cfg.WarmupSteps = 1, 0.01, 0
	tr, err := model.NewTrainer(net, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	batch := []model.Sample{startSample()}
	first, _ := tr.Step(batch)
	var last model.Losses
	for range 20 {
		last, _ = tr.Step(batch)
	}
	fmt.Println("value loss fell:", last.Value < first.Value, "steps:", net.Steps())
	// Output: value loss fell: true steps: 21
}

func ExampleServer() {
	net, _ := model.New(model.DefaultConfig(), rand.New(rand.NewPCG(1, 2)))
	srv, err := model.NewServer(net, model.DefaultServerConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	// Any number of goroutines may call srv.Evaluate; their positions are
	// evaluated together.
	s := startSample()
	priors := [][]float32{make([]float32, len(s.Legal))}
	values := make([]float32, 1)
	err = srv.Evaluate(s.Obs, [][]env.Action{s.Legal}, priors, values)
	fmt.Println("error:", err)
	// Output: error: <nil>
}

func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "model-example")
	defer os.RemoveAll(dir)
	net, _ := model.New(model.DefaultConfig(), rand.New(rand.NewPCG(1, 2)))
	net.Meta["iterations"] = "40"
	path := filepath.Join(dir, "player.dsnn")
	if err := net.Save(path); err != nil {
		fmt.Println(err)
		return
	}
	loaded, err := model.Load(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(loaded.Config(), loaded.Meta["iterations"], loaded.CheckConfig(model.DefaultConfig()))
	// Output: 3x32 (value 2/64) 40 <nil>
}

// A network from weights handed over by another language: all zeros here,
// so every legal move gets the same prior and the value is tanh(0).
func ExampleFromWeights() {
	cfg := model.Config{Blocks: 1, Channels: 4, ValuePlanes: 1, ValueHidden: 8}
	shape, _ := model.New(cfg, rand.New(rand.NewPCG(1, 2)))
	flat := make([]float32, shape.NumParams()) // every tensor in file order
	net, err := model.FromWeights(cfg, flat, 0, map[string]string{"made_by": "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := startSample()
	priors := [][]float32{make([]float32, len(s.Legal))}
	values := make([]float32, 1)
	if err := net.Evaluate(s.Obs, [][]env.Action{s.Legal}, priors, values); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d parameters, prior %.4f (1/%d), value %v\n", len(flat), priors[0][0], len(s.Legal), values[0])
	_, err = model.FromWeights(cfg, flat[1:], 0, nil)
	fmt.Println(err)
	// Output:
	// 9046 parameters, prior 0.0208 (1/48), value 0
	// network from weights: network weights do not match its architecture: 9045 values, 1x4 (value 1/8) has 9046
}
