package model

import (
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

func TestWeights(t *testing.T) {
	for _, cfg := range []Config{tinyConfig, {Blocks: 0, Channels: 2, ValuePlanes: 1, ValueHidden: 3}, DefaultConfig()} {
		t.Run(cfg.String(), func(t *testing.T) {
			net, err := New(cfg, seeded(9))
			if err != nil {
				t.Fatal(err)
			}
			ws := net.Weights()
			var names []string
			total := 0
			for i, w := range ws {
				names = append(names, w.Name)
				size := 1
				for _, d := range w.Shape {
					size *= d
				}
				if size != len(w.Data) {
					t.Errorf("%s: shape %v for %d values", w.Name, w.Shape, len(w.Data))
				}
				if spec := cfg.specs()[i]; !slices.Equal(spec.Shape, w.Shape) {
					t.Errorf("%s: shape %v, the file stores %v", w.Name, w.Shape, spec.Shape)
				}
				total += size
			}
			want := []string{"stem.w", "stem.b"}
			for i := range cfg.Blocks {
				p := "block" + strconv.Itoa(i)
				want = append(want, p+".w1", p+".b1", p+".w2", p+".b2")
			}
			want = append(want, "policy.w", "policy.b", "value.conv.w", "value.conv.b", "value.fc1.w", "value.fc1.b", "value.fc2.w", "value.fc2.b")
			if !slices.Equal(names, want) {
				t.Errorf("names %v, want %v", names, want)
			}
			if total != net.NumParams() {
				t.Errorf("%d values, the network has %d parameters", total, net.NumParams())
			}

			// A copy: changing it leaves the network alone.
			ws[0].Data[0] += 1
			ws[0].Shape[0] = -1
			if again := net.Weights(); again[0].Data[0] == ws[0].Data[0] || again[0].Shape[0] != cfg.Channels {
				t.Error("Weights returned the network's own arrays")
			}

			// The file's values, bit for bit.
			path := filepath.Join(t.TempDir(), "net.dsnn")
			if err := net.Save(path); err != nil {
				t.Fatal(err)
			}
			loaded, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range loaded.Weights() {
				orig := net.Weights()[i]
				for j := range w.Data {
					if math.Float32bits(w.Data[j]) != math.Float32bits(orig.Data[j]) {
						t.Fatalf("%s[%d]: %g after a save and load, %g before", w.Name, j, w.Data[j], orig.Data[j])
					}
				}
			}
		})
	}
}
