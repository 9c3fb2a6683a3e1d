package model

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/codec"
	"github.com/deathstacks/deathstacks/model/internal/graph"
	"github.com/deathstacks/deathstacks/model/internal/optim"
)

// The file format; see the package documentation.
const (
	fileMagic = "DSTKNNET"
	// FormatVersion is the version of the file format this package
	// writes for a network without auxiliary heads, the one every earlier
	// program reads.
	FormatVersion = 1
	// formatVersionAux is the version written for a network with
	// auxiliary heads: version 1 with a uint32 of the heads' bits (reply
	// 1, ownership 2, score 4) after value_hidden, and the heads' tensors
	// after the others. This package reads both.
	formatVersionAux = 2

	optNone = 0
	optAdam = 1
	optSGD  = 2

	maxMetaEntries = 1024
	maxMetaLen     = 1 << 16
)

// Load errors, for errors.Is.
var (
	// ErrNotNetwork: the data does not start with this package's magic.
	ErrNotNetwork = errors.New("not a deathstacks network file")
	// ErrFormatVersion: the file has another format version.
	ErrFormatVersion = errors.New("unsupported network file format version")
	// ErrEncoding: the network was trained for another observation or
	// action encoding.
	ErrEncoding = errors.New("network is for another encoding")
	// ErrArchitecture: the stored weights do not fit the stored
	// architecture.
	ErrArchitecture = errors.New("network weights do not match its architecture")
	// ErrCorrupt: the checksum or a field's value is wrong.
	ErrCorrupt = errors.New("network file is corrupt")
	// ErrTruncated: the data ends early.
	ErrTruncated = errors.New("network file is truncated")
)

// Save writes the network without optimiser state to path, atomically.
func (n *Network) Save(path string) error {
	return saveFile(path, n.WriteTo)
}

// WriteTo writes the network without optimiser state to w; a later
// [ReadNetwork] reads back exactly these bytes, so the network can be a
// section of a larger file.
func (n *Network) WriteTo(w io.Writer) (int64, error) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return writeFile(w, n, nil)
}

// WriteTo writes the network and the optimiser state to w; see
// [ReadTrainer].
func (t *Trainer) WriteTo(w io.Writer) (int64, error) {
	t.net.mu.RLock()
	defer t.net.mu.RUnlock()
	return writeFile(w, t.net, t.opt)
}

// Load reads a network from path, ignoring any optimiser state.
func Load(path string) (*Network, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load network: %w", err)
	}
	defer f.Close()
	n, _, err := readFile(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("load network %s: %w", path, err)
	}
	return n, nil
}

// ReadNetwork reads a network written by WriteTo (of a [Network] or a
// [Trainer]), consuming exactly its bytes from r.
func ReadNetwork(r io.Reader) (*Network, error) {
	n, _, err := readFile(r)
	if err != nil {
		return nil, fmt.Errorf("read network: %w", err)
	}
	return n, nil
}

// ReadTrainer reads a network and its optimiser state, written by
// [Trainer.WriteTo], consuming exactly the network's bytes from r, and
// returns a trainer that continues exactly where the written one stopped.
// A network without optimiser state gives a fresh optimiser; state of
// another optimiser than cfg's is an error.
func ReadTrainer(r io.Reader, cfg TrainConfig) (*Trainer, error) {
	n, opt, err := readFile(r)
	if err != nil {
		return nil, fmt.Errorf("read trainer: %w", err)
	}
	return newTrainer(n, cfg, opt, false)
}

// saveFile writes a file atomically with [codec.WriteFileAtomic].
func saveFile(path string, write func(io.Writer) (int64, error)) error {
	err := codec.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := write(w)
		return err
	})
	if err != nil {
		return fmt.Errorf("save network: %w", err)
	}
	return nil
}

func writeFile(w io.Writer, n *Network, opt *optim.State) (int64, error) {
	e := codec.NewWriter(w)
	aux := n.cfg.auxBits()
	if aux == 0 {
		e.Header(fileMagic, FormatVersion)
	} else {
		e.Header(fileMagic, formatVersionAux)
	}
	for _, v := range []int{env.EncodingVersion, env.NumPlanes, env.NumActions,
		n.cfg.Blocks, n.cfg.Channels, n.cfg.ValuePlanes, n.cfg.ValueHidden} {
		e.U32(uint32(v))
	}
	if aux != 0 {
		e.U32(aux)
	}
	e.I64(n.steps)
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range n.Meta {
			if !yield(k) {
				return
			}
		}
	})
	if len(keys) > maxMetaEntries {
		return e.Len(), fmt.Errorf("write network: %d metadata entries, at most %d", len(keys), maxMetaEntries)
	}
	e.U32(uint32(len(keys)))
	for _, k := range keys {
		if len(k) > maxMetaLen || len(n.Meta[k]) > maxMetaLen {
			return e.Len(), fmt.Errorf("write network: metadata %q: key or value longer than %d bytes", k, maxMetaLen)
		}
		e.String(k)
		e.String(n.Meta[k])
	}
	specs := n.cfg.specs()
	e.U32(uint32(len(specs)))
	for i, s := range specs {
		e.U32(uint32(len(s.Shape)))
		for _, d := range s.Shape {
			e.U32(uint32(d))
		}
		e.Float32s(n.weights[i])
	}
	switch {
	case opt == nil:
		e.U32(optNone)
	default:
		kind := uint32(optSGD)
		if opt.Adam {
			kind = optAdam
		}
		e.U32(kind)
		e.I64(opt.T)
		for _, slot := range opt.Slots() {
			for _, a := range slot {
				e.Float32s(a)
			}
		}
	}
	e.Sum()
	if err := e.Err(); err != nil {
		return e.Len(), fmt.Errorf("write network: %w", err)
	}
	return e.Len(), nil
}

// readFile reads one network section from r, checking everything before
// returning: a network is never returned from data that fails a check.
func readFile(r io.Reader) (*Network, *optim.State, error) {
	d := codec.NewReader(r, ErrCorrupt, ErrTruncated)
	cfg, steps, err := readHeader(d)
	if err != nil {
		return nil, nil, err
	}
	meta := readMeta(d)
	specs := cfg.specs()
	weights, err := readWeights(d, cfg, specs)
	if err != nil {
		return nil, nil, err
	}
	opt := readOptimiser(d, specs)
	if d.Err() != nil {
		return nil, nil, d.Err()
	}
	if err := d.Sum(); err != nil {
		return nil, nil, err
	}
	return newNetwork(cfg, weights, steps, meta), opt, nil
}

// readHeader reads and checks the section's header: its magic and format
// version, the encoding it was trained for, the architecture and the
// training steps.
func readHeader(d *codec.Reader) (cfg Config, steps int64, err error) {
	var version *codec.VersionError
	format, err := d.HeaderVersions(fileMagic, FormatVersion, formatVersionAux)
	switch {
	case errors.Is(err, codec.ErrBadMagic):
		return cfg, 0, ErrNotNetwork
	case errors.As(err, &version):
		return cfg, 0, fmt.Errorf("%w: file has version %d, this program reads %d to %d", ErrFormatVersion, version.Got, FormatVersion, formatVersionAux)
	}
	enc, planes, actions := d.U32(), d.U32(), d.U32()
	if d.Err() == nil && (enc != env.EncodingVersion || planes != env.NumPlanes || actions != env.NumActions) {
		return cfg, 0, fmt.Errorf("%w: file has encoding %d with %d planes and %d actions, this program uses encoding %d with %d and %d",
			ErrEncoding, enc, planes, actions, env.EncodingVersion, env.NumPlanes, env.NumActions)
	}
	cfg = Config{Blocks: int(d.U32()), Channels: int(d.U32()), ValuePlanes: int(d.U32()), ValueHidden: int(d.U32())}
	if format == formatVersionAux {
		bits := d.U32()
		if d.Err() == nil && (bits == 0 || bits&^auxAll != 0) {
			return cfg, 0, fmt.Errorf("%w: auxiliary heads %#x", ErrCorrupt, bits)
		}
		cfg = cfg.withAuxBits(bits)
	}
	steps = d.I64()
	if d.Err() != nil {
		return cfg, 0, d.Err()
	}
	if err := cfg.Validate(); err != nil {
		return cfg, 0, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if steps < 0 {
		return cfg, 0, fmt.Errorf("%w: %d training steps", ErrCorrupt, steps)
	}
	return cfg, steps, nil
}

// readMeta reads the metadata entries; damage fails d.
func readMeta(d *codec.Reader) map[string]string {
	meta := map[string]string{}
	k := d.U32()
	if k > maxMetaEntries {
		d.Fail(fmt.Errorf("%w: %d metadata entries", ErrCorrupt, k))
		return meta
	}
	prev := ""
	for i := range k {
		key := d.String(maxMetaLen, "metadata string")
		// Keys are written sorted and unique; anything else is damage.
		if d.Err() == nil && i > 0 && key <= prev {
			d.Fail(fmt.Errorf("%w: metadata keys out of order", ErrCorrupt))
		}
		meta[key] = d.String(maxMetaLen, "metadata string")
		prev = key
	}
	return meta
}

// readWeights reads the weight tensors of cfg, whose specs are given,
// checking their number and shapes.
func readWeights(d *codec.Reader, cfg Config, specs []graph.Spec) ([][]float32, error) {
	if k := d.U32(); d.Err() == nil && int(k) != len(specs) {
		return nil, fmt.Errorf("%w: %d weight tensors, %v has %d", ErrArchitecture, k, cfg, len(specs))
	}
	weights := make([][]float32, len(specs))
	for i, s := range specs {
		dims := d.U32()
		shape := make([]int, 0, 4)
		for range min(dims, 8) {
			shape = append(shape, int(d.U32()))
		}
		if d.Err() == nil && !slices.Equal(shape, s.Shape) {
			return nil, fmt.Errorf("%w: %s has shape %v, %v needs %v", ErrArchitecture, s.Name, shape, cfg, s.Shape)
		}
		weights[i] = make([]float32, s.Size())
		d.Float32s(weights[i])
	}
	return weights, nil
}

// readOptimiser reads the optimiser state, nil for a network saved
// without one; damage fails d.
func readOptimiser(d *codec.Reader, specs []graph.Spec) *optim.State {
	var opt *optim.State
	switch kind := d.U32(); kind {
	case optNone:
	case optAdam, optSGD:
		opt = optim.New(kind == optAdam, graph.Sizes(specs))
		if opt.T = d.I64(); opt.T < 0 {
			d.Fail(fmt.Errorf("%w: %d optimiser steps", ErrCorrupt, opt.T))
		}
		for _, slot := range opt.Slots() {
			for _, a := range slot {
				d.Float32s(a)
			}
		}
	default:
		d.Fail(fmt.Errorf("%w: optimiser kind %d", ErrCorrupt, kind))
	}
	return opt
}
