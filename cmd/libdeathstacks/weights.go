package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/model/codec"
	"github.com/deathstacks/deathstacks/train"
)

// A network's weights for other languages: its tensors in the order of
// the network file (model's package documentation, "Files"), read back
// from the file form model writes, with the names of model's parameters.
// Package model does not export its tensors; when it does, this file
// reads them from there instead.

// tensor is one weight tensor.
type tensor struct {
	Name   string `json:"name"`
	Shape  []int  `json:"shape"`
	Offset int    `json:"offset"` // in float32 values, in the concatenation of all
	data   []float32
}

// tensorNames names the tensors of a network with blocks residual blocks,
// in file order.
func tensorNames(blocks int) []string {
	names := []string{"stem.w", "stem.b"}
	for i := range blocks {
		p := "block" + strconv.Itoa(i)
		names = append(names, p+".w1", p+".b1", p+".w2", p+".b2")
	}
	return append(names, "policy.w", "policy.b", "value.conv.w", "value.conv.b",
		"value.fc1.w", "value.fc1.b", "value.fc2.w", "value.fc2.b")
}

var (
	errCorrupt   = errors.New("network data is corrupt")
	errTruncated = errors.New("network data is truncated")
)

// networkMagic starts a network file.
const networkMagic = "DSTKNNET"

// tensorsOf returns net's tensors, reading the file form it writes.
func tensorsOf(net *model.Network) ([]tensor, error) {
	var buf bytes.Buffer
	if _, err := net.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("weights: %w", err)
	}
	d := codec.NewReader(&buf, errCorrupt, errTruncated)
	if err := d.Header(networkMagic, model.FormatVersion); err != nil {
		return nil, fmt.Errorf("weights: %w", err)
	}
	for range 7 { // encoding, planes, actions, blocks, channels, value planes, value hidden
		d.U32()
	}
	d.I64() // training steps
	for range d.U32() {
		d.String(1<<16, "metadata key")
		d.String(1<<16, "metadata value")
	}
	names := tensorNames(net.Config().Blocks)
	if k := d.U32(); d.Err() == nil && int(k) != len(names) {
		return nil, fmt.Errorf("weights: %d tensors, the layout of %v has %d", k, net.Config(), len(names))
	}
	out := make([]tensor, len(names))
	offset := 0
	for i, name := range names {
		t := tensor{Name: name, Offset: offset}
		size := 1
		for range min(d.U32(), 8) {
			n := int(d.U32())
			t.Shape = append(t.Shape, n)
			size *= n
		}
		if d.Err() != nil || size < 0 || size > 1<<28 {
			return nil, fmt.Errorf("weights: tensor %s: %w", name, errors.Join(d.Err(), errCorrupt))
		}
		t.data = make([]float32, size)
		d.Float32s(t.data)
		out[i] = t
		offset += size
	}
	if d.Err() != nil {
		return nil, fmt.Errorf("weights: %w", d.Err())
	}
	return out, nil
}

// weights loads the network of the handle's path the first time and
// returns its tensors.
func (nw *network) weights() ([]tensor, error) {
	if nw.tensors == nil {
		net, err := train.LoadNetwork(nw.path)
		if err != nil {
			return nil, err
		}
		ts, err := tensorsOf(net)
		if err != nil {
			return nil, err
		}
		nw.tensors, nw.about = ts, aboutOf(net)
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
