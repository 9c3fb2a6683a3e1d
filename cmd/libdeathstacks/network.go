package main

import (
	"fmt"
	"math"
	"sync"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/model"
)

// network is a network's batched inference, through the process's server
// for its file.
type network struct {
	eval mcts.Evaluator
	// path is the model path; tensors its weights, read when first asked
	// for.
	path    string
	tensors []tensor
	about   networkAbout
}

func (*network) close() error { return nil }

// newNetwork loads the network of a model path ("" for the built-in
// player's) as az players do.
func newNetwork(path string) (*network, error) {
	eval, _, err := models().Load(path)
	if err != nil {
		return nil, err
	}
	return &network{eval: eval, path: path}, nil
}

// allActions lists every action, the legal actions of predict's rows.
var allActions = sync.OnceValue(func() []env.Action {
	all := make([]env.Action, env.NumActions)
	for i := range all {
		all[i] = env.Action(i)
	}
	return all
})

// minLogProb is the log-probability predict reports for a probability that
// underflowed to 0.
const minLogProb = -87

// predict evaluates n observations, writing each one's log-probabilities
// over every action (the policy logits, shifted to a log-softmax) into
// logits and its value into values.
func (nw *network) predict(obs []float32, n int, logits, values []float32) error {
	if n < 0 {
		return fmt.Errorf("predict: %d positions", n)
	}
	for _, c := range []struct {
		what       string
		have, want int
	}{
		{"observations", len(obs), n * env.ObservationSize},
		{"logits", len(logits), n * env.NumActions},
		{"values", len(values), n},
	} {
		if c.have != c.want {
			return fmt.Errorf("predict: %s buffer has %d values for %d positions, want %d", c.what, c.have, n, c.want)
		}
	}
	if n == 0 {
		return nil
	}
	legal := make([][]env.Action, n)
	priors := make([][]float32, n)
	for i := range n {
		legal[i] = allActions()
		priors[i] = logits[i*env.NumActions : (i+1)*env.NumActions]
	}
	if err := nw.eval.Evaluate(obs, legal, priors, values); err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	for i, p := range logits {
		if p > 0 {
			logits[i] = float32(math.Log(float64(p)))
		} else {
			logits[i] = minLogProb
		}
	}
	return nil
}

// serverStats writes the network server's counts of a model path (""
// for the built-in player's), the server az players and networks of that
// path share: batches run and positions evaluated.
func serverStats(path string, out []int64) error {
	if err := checkLen("stats buffer", out, 2); err != nil || out == nil {
		return fmt.Errorf("server stats: want a buffer of 2 values: %w", err)
	}
	eval, _, err := models().Load(path)
	if err != nil {
		return err
	}
	srv, ok := eval.(interface{ Stats() model.ServerStats })
	if !ok {
		return fmt.Errorf("server stats: model %q is not served by a batching server", path)
	}
	st := srv.Stats()
	out[0], out[1] = st.Batches, st.Positions
	return nil
}
