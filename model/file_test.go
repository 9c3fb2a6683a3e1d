package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/model/codec"
)

// trainedTrainer returns a trainer of a tiny network after two Adam steps,
// with metadata.
func trainedTrainer(t testing.TB, tc TrainConfig) *Trainer {
	t.Helper()
	n, _ := New(tinyConfig, seeded(1))
	n.Meta["iterations"] = "2"
	n.Meta["date"] = "2025-01-01"
	tr, err := NewTrainer(n, tc)
	if err != nil {
		t.Fatal(err)
	}
	batches := samplePositions(seeded(2), 2*tc.BatchSize)
	for i := 0; i < len(batches); i += tc.BatchSize {
		if _, err := tr.Step(batches[i : i+tc.BatchSize]); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

func evaluateAll(t *testing.T, n *Network, samples []Sample) ([][]float32, []float32) {
	t.Helper()
	obs, legal, priors, values := evalArgs(samples)
	if err := n.Evaluate(obs, legal, priors, values); err != nil {
		t.Fatal(err)
	}
	return priors, values
}

func TestSaveLoadNetwork(t *testing.T) {
	tr := trainedTrainer(t, tinyTrainConfig(4))
	n := tr.Network()
	path := filepath.Join(t.TempDir(), "net.bin")
	if err := n.Save(path); err != nil {
		t.Fatal(err)
	}
	m, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.Config() != n.Config() || m.Steps() != 2 || m.Meta["iterations"] != "2" || m.Meta["date"] != "2025-01-01" {
		t.Errorf("loaded %v, %d steps, meta %v", m.Config(), m.Steps(), m.Meta)
	}
	samples := samplePositions(seeded(3), 5)
	p1, v1 := evaluateAll(t, n, samples)
	p2, v2 := evaluateAll(t, m, samples)
	for i := range p1 {
		if !slices.Equal(p1[i], p2[i]) {
			t.Errorf("position %d: priors differ after save and load", i)
		}
	}
	if !slices.Equal(v1, v2) {
		t.Errorf("values differ after save and load: %v, %v", v1, v2)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("save left %d files in its directory", len(entries))
	}
}

// TestResumeTraining checks that a saved trainer continues exactly: the
// optimiser state is saved with the weights.
func TestResumeTraining(t *testing.T) {
	for _, opt := range []string{adamName, adamWName, sgdName} {
		t.Run(opt, func(t *testing.T) {
			tc := tinyTrainConfig(4)
			tc.Optimizer = opt
			tr := trainedTrainer(t, tc)
			var buf bytes.Buffer
			if _, err := tr.WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			resumed, err := ReadTrainer(&buf, tc)
			if err != nil {
				t.Fatal(err)
			}
			batch := samplePositions(seeded(5), 4)
			for range 2 {
				l1, err1 := tr.Step(batch)
				l2, err2 := resumed.Step(batch)
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				if l1 != l2 {
					t.Errorf("losses differ: %+v, %+v", l1, l2)
				}
			}
			for i := range tr.net.weights {
				if !slices.Equal(tr.net.weights[i], resumed.net.weights[i]) {
					t.Fatalf("tensor %d differs after resumed training", i)
				}
			}
			if resumed.Network().Steps() != 4 {
				t.Errorf("resumed network has %d steps, want 4", resumed.Network().Steps())
			}
		})
	}
}

func TestNetworkSectionInLargerStream(t *testing.T) {
	tr := trainedTrainer(t, tinyTrainConfig(2))
	var buf bytes.Buffer
	buf.WriteString("header")
	if _, err := tr.Network().WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	buf.WriteString("trailer")
	buf.Next(len("header"))
	if _, err := ReadNetwork(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTrainer(&buf, tinyTrainConfig(2)); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "trailer" {
		t.Errorf("reading left %q", buf.String())
	}
}

// fixCRC rewrites the trailing checksum after an edit, so that a test
// reaches the check it means.
func fixCRC(b []byte) []byte {
	binary.LittleEndian.PutUint32(b[len(b)-4:], codec.Checksum(b[:len(b)-4]))
	return b
}

func TestLoadErrors(t *testing.T) {
	tc := tinyTrainConfig(2)
	tr := trainedTrainer(t, tc)
	var buf bytes.Buffer
	if _, err := tr.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	edit := func(f func(b []byte) []byte) []byte { return f(slices.Clone(good)) }
	put := func(off int, v uint32) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint32(b[off:], v); return b }
	}
	const (
		offVersion  = 8
		offEncoding = 12
		offPlanes   = 16
		offChannels = 28
	)
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"bad magic", edit(func(b []byte) []byte { b[0] = 'X'; return b }), ErrNotNetwork},
		{"text file", []byte("blocks: 3\nchannels: 32\n"), ErrNotNetwork},
		{"future version", edit(put(offVersion, formatVersionAux+1)), ErrFormatVersion},
		{"version zero", edit(put(offVersion, 0)), ErrFormatVersion},
		{"other encoding", edit(put(offEncoding, 999)), ErrEncoding},
		{"other planes", edit(put(offPlanes, 3)), ErrEncoding},
		{"other architecture", edit(put(offChannels, uint32(tinyConfig.Channels+1))), ErrArchitecture},
		{"absurd architecture", edit(put(offChannels, 1<<30)), ErrCorrupt},
		{"flipped weight bit", edit(func(b []byte) []byte { b[len(b)/2] ^= 1; return b }), ErrCorrupt},
		{"flipped checksum bit", edit(func(b []byte) []byte { b[len(b)-1] ^= 0x80; return b }), ErrCorrupt},
		{"bad optimiser kind", edit(func(b []byte) []byte {
			// Rewrite as a network-only file whose optimiser tag is unknown.
			var nb bytes.Buffer
			tr.Network().WriteTo(&nb)
			c := nb.Bytes()
			binary.LittleEndian.PutUint32(c[len(c)-8:], 7)
			return fixCRC(c)
		}), ErrCorrupt},
		{"truncated header", good[:20], ErrTruncated},
		{"truncated weights", good[:len(good)/2], ErrTruncated},
		{"truncated checksum", good[:len(good)-2], ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "net.bin")
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			n, err := Load(path)
			if !errors.Is(err, tt.want) || n != nil {
				t.Errorf("Load: %v, want %v", err, tt.want)
			}
			if _, err := ReadTrainer(bytes.NewReader(tt.data), tc); !errors.Is(err, tt.want) {
				t.Errorf("ReadTrainer: %v, want %v", err, tt.want)
			}
		})
	}
}

func TestReadTrainerOptimiserMismatch(t *testing.T) {
	tc := tinyTrainConfig(2)
	tr := trainedTrainer(t, tc)
	var ckpt bytes.Buffer
	if _, err := tr.WriteTo(&ckpt); err != nil {
		t.Fatal(err)
	}
	sgd := tc
	sgd.Optimizer = sgdName
	if _, err := ReadTrainer(bytes.NewReader(ckpt.Bytes()), sgd); err == nil || !strings.Contains(err.Error(), "optimiser") {
		t.Errorf("Adam state loaded for SGD: %v", err)
	}
	// Adam's state carries on under AdamW: the two differ only in the decay.
	adamW := tc
	adamW.Optimizer = adamWName
	if w, err := ReadTrainer(bytes.NewReader(ckpt.Bytes()), adamW); err != nil || w.opt.T != 2 {
		t.Errorf("Adam state for AdamW: %v", err)
	}
	// A network file without optimiser state starts a fresh optimiser.
	var net bytes.Buffer
	if _, err := tr.Network().WriteTo(&net); err != nil {
		t.Fatal(err)
	}
	fresh, err := ReadTrainer(&net, sgd)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.opt.T != 0 || fresh.Network().Steps() != 2 {
		t.Errorf("fresh optimiser at %d updates, network at %d steps", fresh.opt.T, fresh.Network().Steps())
	}
}

func TestSaveErrors(t *testing.T) {
	n, _ := New(tinyConfig, seeded(1))
	if err := n.Save(filepath.Join(t.TempDir(), "missing", "net.bin")); err == nil {
		t.Error("save into a missing directory succeeded")
	}
	n.Meta["big"] = strings.Repeat("x", maxMetaLen+1)
	if err := n.Save(filepath.Join(t.TempDir(), "net.bin")); err == nil {
		t.Error("save of oversized metadata succeeded")
	}
}

// FuzzReadNetwork feeds damaged files to the reader. The seed is a whole
// (small) network of about 30 kB; run it with -fuzzminimizetime 0, or the
// fuzzer spends its time minimising such inputs.
func FuzzReadNetwork(f *testing.F) {
	n, _ := New(Config{Blocks: 0, Channels: 1, ValuePlanes: 1, ValueHidden: 1}, seeded(1))
	n.Meta["k"] = "v"
	var buf bytes.Buffer
	n.WriteTo(&buf)
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:40])
	aux, _ := New(Config{Blocks: 0, Channels: 1, ValuePlanes: 1, ValueHidden: 1, ReplyHead: true, ScoreHead: true}, seeded(2))
	buf.Reset()
	aux.WriteTo(&buf)
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		m, opt, err := readFile(bytes.NewReader(data))
		if (m == nil) == (err == nil) {
			t.Fatalf("network %v with error %v", m != nil, err)
		}
		if err == nil {
			var out bytes.Buffer
			if _, err := writeFile(&out, m, opt); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), data[:out.Len()]) {
				t.Error("a network read back writes other bytes")
			}
		}
	})
}

func TestReadFlushesSubnormalWeights(t *testing.T) {
	// A file written with subnormal weights (as training left the
	// built-in player's, a third of them) reads back with those weights
	// 0 and every other weight as written: subnormal arithmetic makes
	// such a network evaluate tens of times slower.
	n, err := New(tinyConfig, seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	n.weights[0][0], n.weights[1][1] = 1e-40, -1e-39
	var buf bytes.Buffer
	if _, err := n.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadNetwork(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range back.weights {
		for j, x := range w {
			want := n.weights[i][j]
			if i == 0 && j == 0 || i == 1 && j == 1 {
				want = 0
			}
			if x != want {
				t.Fatalf("weight %d[%d] reads back as %v: want %v", i, j, x, want)
			}
		}
	}
}

// TestFromWeights checks that a network built from its weights in file
// order writes the same file as the network they come from, and that bad
// weights are errors.
func TestFromWeights(t *testing.T) {
	n := trainedTrainer(t, tinyTrainConfig(4)).Network()
	var flat []float32
	for _, w := range n.weights {
		flat = append(flat, w...)
	}
	back, err := FromWeights(n.Config(), flat, n.Steps(), n.Meta)
	if err != nil {
		t.Fatal(err)
	}
	var want, got bytes.Buffer
	n.WriteTo(&want)
	back.WriteTo(&got)
	if !bytes.Equal(want.Bytes(), got.Bytes()) {
		t.Fatal("a network built from its weights writes another file")
	}
	flat[0] = 123
	if back.weights[0][0] == 123 {
		t.Fatal("FromWeights keeps the caller's slice")
	}
	tests := []struct {
		name    string
		cfg     Config
		flat    []float32
		steps   int64
		want    string
		wantErr error
	}{
		{"short", tinyConfig, flat[:len(flat)-1], 0, "values", ErrArchitecture},
		{"long", tinyConfig, append(slices.Clone(flat), 0), 0, "values", ErrArchitecture},
		{"other config", Config{Blocks: 2, Channels: 8, ValuePlanes: 1, ValueHidden: 16}, flat, 0, "values", ErrArchitecture},
		{"bad config", Config{Blocks: 1, Channels: 0, ValuePlanes: 1, ValueHidden: 16}, flat, 0, "channels", nil},
		{"negative steps", tinyConfig, flat, -1, "training steps", nil},
		{"NaN", tinyConfig, withValue(flat, 5, float32(math.NaN())), 0, "stem.w[5] is NaN", nil},
		{"infinite", tinyConfig, withValue(flat, len(flat)-1, float32(math.Inf(-1))), 0, "value.fc2.b[0] is -Inf", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := FromWeights(tt.cfg, tt.flat, tt.steps, nil)
			if m != nil || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("FromWeights = %v, %v: want an error about %q", m != nil, err, tt.want)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v is not %v", err, tt.wantErr)
			}
		})
	}
}

// withValue returns a copy of flat with flat[i] = x.
func withValue(flat []float32, i int, x float32) []float32 {
	c := slices.Clone(flat)
	c[i] = x
	return c
}
