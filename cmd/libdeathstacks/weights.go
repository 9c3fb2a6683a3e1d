package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

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
		nw.tensors = ts
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
