package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
)

// A network's weights for other languages: its tensors in the order of
// the network file (model's package documentation, "Files"), with the
// names of model's parameters ([model.Network.Weights]).

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

// weights loads the network of the handle's path the first time and
// returns its tensors: those inference uses, without the auxiliary heads
// that only the Go trainer computes ([model.Network.WithoutAux]).
func (nw *network) weights() ([]tensor, error) {
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

// weightsIndex returns the tensors' names, shapes and offsets as JSON.
func (nw *network) weightsIndex() (string, error) {
	ts, err := nw.weights()
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(ts)
	return string(b), err
}

// copyWeights writes every tensor, concatenated in order, into dst, which
// must hold exactly all of them.
func (nw *network) copyWeights(dst []float32) error {
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
// and its weights concatenated in file order (as copyWeights writes them)
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

// networkAbout is what a network handle tells of its network besides the
// weights, as JSON; a saved network takes it back.
type networkAbout struct {
	Config architecture `json:"config"`
	// Steps is its training step count.
	Steps int64 `json:"steps"`
	// Meta is its metadata: the search settings it plays with (as YAML,
	// under "search"), its run and iteration, how it was made.
	Meta map[string]string `json:"meta"`
}

func aboutOf(net *model.Network) networkAbout {
	return networkAbout{Config: architectureOf(net.Config()), Steps: net.Steps(), Meta: net.Meta}
}

// aboutText returns the handle's network's architecture, training steps
// and metadata as JSON; the metadata's "search" is the search settings
// its az players play with (see train.Models), however the path stores
// them.
func (nw *network) aboutText() (string, error) {
	if _, err := nw.weights(); err != nil {
		return "", err
	}
	_, search, err := models().Load(nw.path)
	if err != nil {
		return "", err
	}
	text, err := yaml.Marshal(search)
	if err != nil {
		return "", err
	}
	about := nw.about
	about.Meta = maps.Clone(about.Meta)
	about.Meta["search"] = string(text)
	b, err := json.Marshal(about)
	return string(b), err
}

// saveRequest is what ds_network_save takes as JSON besides the weights.
type saveRequest struct {
	networkAbout
	// Search changes search settings by the keys of az specs ("sims",
	// "c_puct", ...), over those the network's metadata carries.
	Search map[string]string `json:"search"`
	// Extra are more metadata entries, such as how the network was made;
	// they may not replace those the player file's writer sets.
	Extra map[string]string `json:"extra_meta"`
}

// saveNetwork writes a player file at path (atomically, checksummed) of
// the network a request describes with the weights flat, in file order.
func saveNetwork(request string, flat []float32, path string) error {
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
