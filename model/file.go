package model

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/codec"
)

// The file format; see the package documentation.
const (
	fileMagic = "DSTKNNET"
	// FormatVersion is the version of the file format this package
	// writes; it reads this version only.
	FormatVersion = 1

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

var crcTable = crc32.MakeTable(crc32.Castagnoli)

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

// Save writes the network and the optimiser state to path, atomically.
func (t *Trainer) Save(path string) error {
	return saveFile(path, t.WriteTo)
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

// LoadTrainer reads a network and its optimiser state from path and returns
// a trainer that continues exactly where the saved one stopped. A file
// without optimiser state gives a fresh optimiser; state of another
// optimiser than cfg's is an error.
func LoadTrainer(path string, cfg TrainConfig) (*Trainer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load trainer: %w", err)
	}
	defer f.Close()
	t, err := ReadTrainer(bufio.NewReader(f), cfg)
	if err != nil {
		return nil, fmt.Errorf("load trainer %s: %w", path, err)
	}
	return t, nil
}

// ReadTrainer is [LoadTrainer] from a reader, consuming exactly the
// network's bytes.
func ReadTrainer(r io.Reader, cfg TrainConfig) (*Trainer, error) {
	n, opt, err := readFile(r)
	if err != nil {
		return nil, fmt.Errorf("read trainer: %w", err)
	}
	return newTrainer(n, cfg, opt)
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

// encoder writes little-endian values through the checksum, keeping the
// first error.
type encoder struct {
	w   io.Writer
	crc hash.Hash32
	n   int64
	err error
	buf []byte
}

func (e *encoder) bytes(b []byte) {
	if e.err != nil {
		return
	}
	e.crc.Write(b)
	k, err := e.w.Write(b)
	e.n += int64(k)
	e.err = err
}

func (e *encoder) u32(v uint32) { e.bytes(binary.LittleEndian.AppendUint32(e.buf[:0], v)) }
func (e *encoder) i64(v int64)  { e.bytes(binary.LittleEndian.AppendUint64(e.buf[:0], uint64(v))) }

func (e *encoder) str(s string) {
	e.u32(uint32(len(s)))
	e.bytes([]byte(s))
}

func (e *encoder) floats(v []float32) {
	const chunk = 4096
	for len(v) > 0 {
		k := min(len(v), chunk)
		b := e.buf[:0]
		for _, x := range v[:k] {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
		e.bytes(b)
		v = v[k:]
	}
}

func writeFile(w io.Writer, n *Network, opt *optimizer) (int64, error) {
	e := &encoder{w: w, crc: crc32.New(crcTable), buf: make([]byte, 0, 4*4096)}
	e.bytes([]byte(fileMagic))
	for _, v := range []int{FormatVersion, env.EncodingVersion, env.NumPlanes, env.NumActions,
		n.cfg.Blocks, n.cfg.Channels, n.cfg.ValuePlanes, n.cfg.ValueHidden} {
		e.u32(uint32(v))
	}
	e.i64(n.steps)
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range n.Meta {
			if !yield(k) {
				return
			}
		}
	})
	if len(keys) > maxMetaEntries {
		return e.n, fmt.Errorf("write network: %d metadata entries, at most %d", len(keys), maxMetaEntries)
	}
	e.u32(uint32(len(keys)))
	for _, k := range keys {
		if len(k) > maxMetaLen || len(n.Meta[k]) > maxMetaLen {
			return e.n, fmt.Errorf("write network: metadata %q: key or value longer than %d bytes", k, maxMetaLen)
		}
		e.str(k)
		e.str(n.Meta[k])
	}
	specs := n.cfg.specs()
	e.u32(uint32(len(specs)))
	for i, s := range specs {
		e.u32(uint32(len(s.shape)))
		for _, d := range s.shape {
			e.u32(uint32(d))
		}
		e.floats(n.weights[i])
	}
	switch {
	case opt == nil:
		e.u32(optNone)
	default:
		kind := uint32(optSGD)
		if opt.kind == Adam {
			kind = optAdam
		}
		e.u32(kind)
		e.i64(opt.t)
		for _, slot := range opt.slots() {
			for _, a := range slot {
				e.floats(a)
			}
		}
	}
	if e.err == nil {
		sum := e.crc.Sum32()
		e.u32(sum)
	}
	if e.err != nil {
		return e.n, fmt.Errorf("write network: %w", e.err)
	}
	return e.n, nil
}

// decoder reads little-endian values through the checksum, keeping the
// first error; reads after an error return zeros.
type decoder struct {
	r   io.Reader
	crc hash.Hash32
	err error
	buf []byte
}

func (d *decoder) bytes(n int) []byte {
	if d.err != nil {
		return nil
	}
	if cap(d.buf) < n {
		d.buf = make([]byte, n)
	}
	b := d.buf[:n]
	if _, err := io.ReadFull(d.r, b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = ErrTruncated
		}
		d.err = err
		return nil
	}
	d.crc.Write(b)
	return b
}

func (d *decoder) u32() uint32 {
	b := d.bytes(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (d *decoder) i64() int64 {
	b := d.bytes(8)
	if b == nil {
		return 0
	}
	return int64(binary.LittleEndian.Uint64(b))
}

func (d *decoder) str() string {
	n := d.u32()
	if n > maxMetaLen {
		d.fail(fmt.Errorf("%w: metadata string of %d bytes", ErrCorrupt, n))
		return ""
	}
	return string(d.bytes(int(n)))
}

func (d *decoder) floats(v []float32) {
	const chunk = 4096
	for len(v) > 0 && d.err == nil {
		k := min(len(v), chunk)
		b := d.bytes(4 * k)
		for i := range k {
			if b != nil {
				v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			}
		}
		v = v[k:]
	}
}

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// readFile reads one network section from r, checking everything before
// returning: a network is never returned from data that fails a check.
func readFile(r io.Reader) (*Network, *optimizer, error) {
	d := &decoder{r: r, crc: crc32.New(crcTable)}
	if m := d.bytes(len(fileMagic)); d.err == nil && string(m) != fileMagic {
		return nil, nil, ErrNotNetwork
	}
	if v := d.u32(); d.err == nil && v != FormatVersion {
		return nil, nil, fmt.Errorf("%w: file has version %d, this program reads %d", ErrFormatVersion, v, FormatVersion)
	}
	enc, planes, actions := d.u32(), d.u32(), d.u32()
	if d.err == nil && (enc != env.EncodingVersion || planes != env.NumPlanes || actions != env.NumActions) {
		return nil, nil, fmt.Errorf("%w: file has encoding %d with %d planes and %d actions, this program uses encoding %d with %d and %d",
			ErrEncoding, enc, planes, actions, env.EncodingVersion, env.NumPlanes, env.NumActions)
	}
	cfg := Config{Blocks: int(d.u32()), Channels: int(d.u32()), ValuePlanes: int(d.u32()), ValueHidden: int(d.u32())}
	steps := d.i64()
	if d.err != nil {
		return nil, nil, d.err
	}
	if err := cfg.Validate(); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if steps < 0 {
		return nil, nil, fmt.Errorf("%w: %d training steps", ErrCorrupt, steps)
	}
	meta := map[string]string{}
	if k := d.u32(); k > maxMetaEntries {
		d.fail(fmt.Errorf("%w: %d metadata entries", ErrCorrupt, k))
	} else {
		prev := ""
		for i := range k {
			key := d.str()
			// Keys are written sorted and unique; anything else is damage.
			if d.err == nil && i > 0 && key <= prev {
				d.fail(fmt.Errorf("%w: metadata keys out of order", ErrCorrupt))
			}
			meta[key] = d.str()
			prev = key
		}
	}
	specs := cfg.specs()
	if k := d.u32(); d.err == nil && int(k) != len(specs) {
		return nil, nil, fmt.Errorf("%w: %d weight tensors, %v has %d", ErrArchitecture, k, cfg, len(specs))
	}
	weights := make([][]float32, len(specs))
	for i, s := range specs {
		dims := d.u32()
		shape := make([]int, 0, 4)
		for range min(dims, 8) {
			shape = append(shape, int(d.u32()))
		}
		if d.err == nil && !slices.Equal(shape, s.shape) {
			return nil, nil, fmt.Errorf("%w: %s has shape %v, %v needs %v", ErrArchitecture, s.name, shape, cfg, s.shape)
		}
		weights[i] = make([]float32, s.size())
		d.floats(weights[i])
	}
	var opt *optimizer
	switch kind := d.u32(); kind {
	case optNone:
	case optAdam, optSGD:
		sizes := make([]int, len(specs))
		for i, s := range specs {
			sizes[i] = s.size()
		}
		name := SGD
		if kind == optAdam {
			name = Adam
		}
		opt = newOptimizer(name, sizes)
		if opt.t = d.i64(); opt.t < 0 {
			d.fail(fmt.Errorf("%w: %d optimiser steps", ErrCorrupt, opt.t))
		}
		for _, slot := range opt.slots() {
			for _, a := range slot {
				d.floats(a)
			}
		}
	default:
		d.fail(fmt.Errorf("%w: optimiser kind %d", ErrCorrupt, kind))
	}
	if d.err != nil {
		return nil, nil, d.err
	}
	want := d.crc.Sum32()
	if got := d.u32(); d.err != nil {
		return nil, nil, d.err
	} else if got != want {
		return nil, nil, fmt.Errorf("%w: checksum %08x, data gives %08x", ErrCorrupt, got, want)
	}
	return newNetwork(cfg, weights, steps, meta), opt, nil
}
