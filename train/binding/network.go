package binding

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
)

// Network is a network's batched inference, through the server that
// load gives for its model path, and its weights for other languages:
// its tensors in the order of the network file (model's package
// documentation, "Files"), with the names of model's parameters
// ([model.Network.Weights]).
type Network struct {
	eval mcts.Evaluator
	load players.AZLoader
	// path is the model path; tensors its weights and about its
	// description, read when first asked for.
	path    string
	tensors []tensor
	about   about
}

// NewNetwork loads the network of a model path ("" for the built-in
// player's) as az players do, with load.
func NewNetwork(path string, load players.AZLoader) (*Network, error) {
	eval, _, err := load(path)
	if err != nil {
		return nil, err
	}
	return &Network{eval: eval, load: load, path: path}, nil
}

// allActions lists every action, the legal actions of Predict's rows.
var allActions = sync.OnceValue(func() []env.Action {
	all := make([]env.Action, env.NumActions)
	for i := range all {
		all[i] = env.Action(i)
	}
	return all
})

// minLogProb is the log-probability Predict reports for a probability that
// underflowed to 0.
const minLogProb = -87

// Predict evaluates n observations, writing each one's log-probabilities
// over every action (the policy logits, shifted to a log-softmax) into
// logits and its value into values.
func (nw *Network) Predict(obs []float32, n int, logits, values []float32) error {
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

// ServerStats writes the network server's counts of a model path (""
// for the built-in player's), the server that load shares among az
// players and networks of that path: batches run and positions
// evaluated.
func ServerStats(path string, load players.AZLoader, out []int64) error {
	if err := checkLen("stats buffer", out, 2); err != nil || out == nil {
		return fmt.Errorf("server stats: want a buffer of 2 values: %w", err)
	}
	eval, _, err := load(path)
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

// tensor is one weight tensor.
type tensor struct {
	Name   string `json:"name"`
	Shape  []int  `json:"shape"`
	Offset int    `json:"offset"` // in float32 values, in the concatenation of all
	data   []float32
}

// tensorsOf returns net's tensors with their offsets in the concatenation.
func tensorsOf(net *model.Network) []tensor {
	ws := net.Weights()
	out := make([]tensor, len(ws))
	offset := 0
	for i, w := range ws {
		out[i] = tensor{Name: w.Name, Shape: w.Shape, Offset: offset, data: w.Data}
		offset += len(w.Data)
	}
	return out
}

// weights loads the network of the model path the first time and
// returns its tensors: those inference uses, without the auxiliary heads
// that only the Go trainer computes ([model.Network.WithoutAux]).
func (nw *Network) weights() ([]tensor, error) {
	if nw.tensors == nil {
		net, err := train.LoadNetwork(nw.path)
		if err != nil {
			return nil, err
		}
		net = net.WithoutAux()
		nw.tensors, nw.about = tensorsOf(net), aboutOf(net)
	}
	return nw.tensors, nil
}

// WeightsIndex returns the tensors' names, shapes and offsets as JSON.
func (nw *Network) WeightsIndex() (string, error) {
	ts, err := nw.weights()
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(ts)
	return string(b), err
}

// CopyWeights writes every tensor, concatenated in order, into dst, which
// must hold exactly all of them.
func (nw *Network) CopyWeights(dst []float32) error {
	ts, err := nw.weights()
	if err != nil {
		return err
	}
	total := 0
	for _, t := range ts {
		total += len(t.data)
	}
	if len(dst) != total {
		return fmt.Errorf("weights: buffer of %d values, the network has %d", len(dst), total)
	}
	for _, t := range ts {
		copy(dst[t.Offset:], t.data)
	}
	return nil
}

// The inverse, from other languages to a file: a network's architecture
// and its weights concatenated in file order (as CopyWeights writes them)
// become a player file, through model's constructor and the writer of
// exported players.

// architecture is a model.Config as JSON, with its YAML keys.
type architecture struct {
	Blocks      int `json:"blocks"`
	Channels    int `json:"channels"`
	ValuePlanes int `json:"value_planes"`
	ValueHidden int `json:"value_hidden"`
}

func architectureOf(c model.Config) architecture {
	return architecture{Blocks: c.Blocks, Channels: c.Channels, ValuePlanes: c.ValuePlanes, ValueHidden: c.ValueHidden}
}

func (a architecture) config() model.Config {
	return model.Config{Blocks: a.Blocks, Channels: a.Channels, ValuePlanes: a.ValuePlanes, ValueHidden: a.ValueHidden}
}

// about is what a Network tells of its network besides the weights, as
// JSON; a saved network takes it back.
type about struct {
	Config architecture `json:"config"`
	// Steps is its training step count.
	Steps int64 `json:"steps"`
	// Meta is its metadata: the search settings it plays with (as YAML,
	// under "search"), its run and iteration, how it was made.
	Meta map[string]string `json:"meta"`
}

func aboutOf(net *model.Network) about {
	return about{Config: architectureOf(net.Config()), Steps: net.Steps(), Meta: net.Meta}
}

// About returns the network's architecture, training steps and metadata
// as JSON; the metadata's "search" is the search settings its az players
// play with (see train.Models), however the path stores them.
func (nw *Network) About() (string, error) {
	if _, err := nw.weights(); err != nil {
		return "", err
	}
	_, search, err := nw.load(nw.path)
	if err != nil {
		return "", err
	}
	text, err := yaml.Marshal(search)
	if err != nil {
		return "", err
	}
	a := nw.about
	a.Meta = maps.Clone(a.Meta)
	a.Meta["search"] = string(text)
	b, err := json.Marshal(a)
	return string(b), err
}

// saveRequest is what SaveNetwork takes as JSON besides the weights.
type saveRequest struct {
	about
	// Search changes search settings by the keys of az specs ("sims",
	// "c_puct", ...), over those the network's metadata carries.
	Search map[string]string `json:"search"`
	// Extra are more metadata entries, such as how the network was made;
	// they may not replace those the player file's writer sets.
	Extra map[string]string `json:"extra_meta"`
}

// SaveNetwork writes a player file at path (atomically, checksummed) of
// the network a request describes (JSON: "config", "steps", "meta" as
// About writes them; optional "search", settings by az spec key, and
// "extra_meta") with the weights flat, in file order.
func SaveNetwork(request string, flat []float32, path string) error {
	if path == "" {
		return errors.New("save network: no path")
	}
	var r saveRequest
	dec := json.NewDecoder(strings.NewReader(request))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return fmt.Errorf("save network: its description: %w", err)
	}
	net, err := model.FromWeights(r.Config.config(), flat, r.Steps, r.Meta)
	if err != nil {
		return fmt.Errorf("save network %s: %w", path, err)
	}
	if err := train.ExportNetwork(net, path, train.ExportOptions{Search: r.Search, Meta: r.Extra}); err != nil {
		return fmt.Errorf("save network %s: %w", path, err)
	}
	return nil
}
