package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/advancedclimatesystems/gonnx"
	"github.com/deathstacks/deathstacks/model/onnx"
	"github.com/deathstacks/deathstacks/train"
)

func TestExportONNX(t *testing.T) {
	run, err := filepath.Abs(filepath.Join("..", "..", "train", "testdata", "run-v1"))
	if err != nil {
		t.Fatal(err)
	}
	runNet, err := train.LoadNetwork(run)
	if err != nil {
		t.Fatal(err)
	}
	builtin, err := train.LoadNetwork("")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		meta  map[string]string // entries the model must have
		quant int               // parameters the model must hold
	}{
		{"built-in player", nil, map[string]string{
			onnx.MetaSource:  "the built-in player",
			onnx.MetaCommand: "deathstacks export --format onnx --out net.onnx",
		}, builtin.NumParams()},
		{"run directory", []string{"--checkpoint", run, "--meta", "note=a test"}, map[string]string{
			onnx.MetaSource:       "run-v1",
			onnx.MetaArchitecture: runNet.Config().String(),
			onnx.MetaCommand:      "deathstacks export --format onnx --out net.onnx --checkpoint run-v1 --meta 'note=a test'",
			"note":                "a test",
		}, runNet.NumParams()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "net.onnx")
			args := append([]string{"export", "--format", "onnx", "--out", out}, tc.args...)
			if _, errOut, code := runBotCLI("", args...); code != 0 {
				t.Fatalf("export: status %d: %s", code, errOut)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			m, err := gonnx.ModelProtoFromBytes(data)
			if err != nil {
				t.Fatal(err)
			}
			meta := map[string]string{}
			for _, p := range m.GetMetadataProps() {
				meta[p.GetKey()] = p.GetValue()
			}
			// The command records the paths as they were typed.
			typed := strings.NewReplacer("--out net.onnx", "--out "+out, "--checkpoint run-v1", "--checkpoint "+run)
			for k, want := range tc.meta {
				if k == onnx.MetaCommand {
					want = typed.Replace(want)
				}
				if meta[k] != want {
					t.Errorf("metadata %s = %q, want %q", k, meta[k], want)
				}
			}
			params := 0
			for _, init := range m.GetGraph().GetInitializer() {
				if init.GetDataType() == 1 { // float32: the weights and two constants
					params += len(init.GetFloatData())
				}
			}
			if params != tc.quant+2 {
				t.Errorf("the model holds %d float32 values, want the network's %d and 2 constants", params, tc.quant)
			}
		})
	}
}

func TestExportONNXRefuses(t *testing.T) {
	out := filepath.Join(t.TempDir(), "net.onnx")
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"unknown format", []string{"--format", "tflite", "--out", out}, 2},
		{"search settings", []string{"--format", "onnx", "--out", out, "--sims", "10"}, 2},
		{"search setting", []string{"--format", "onnx", "--out", out, "--search", "contempt=1"}, 2},
		{"no output", []string{"--format", "onnx"}, 2},
		{"reserved metadata", []string{"--format", "onnx", "--out", out, "--meta", "export_date=x"}, 2},
		{"missing checkpoint", []string{"--format", "onnx", "--out", out, "--checkpoint", filepath.Join(t.TempDir(), "none")}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runBotCLI("", append([]string{"export"}, tc.args...)...)
			if code != tc.code || errOut == "" {
				t.Errorf("status %d (%q), want %d with a message", code, errOut, tc.code)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a refused export wrote %s", out)
			}
		})
	}
}

// inspect reads the project's own ONNX export: one "key: value" a line,
// the graph's interface and the metadata export wrote; another file named
// .onnx is bad input.
func TestInspectONNX(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "net.onnx")
	run := filepath.Join("..", "..", "train", "testdata", "run-v1")
	if _, errOut, code := runBotCLI("", "export", "--format", "onnx", "--checkpoint", run, "--out", out); code != 0 {
		t.Fatalf("export: status %d: %s", code, errOut)
	}
	junk := filepath.Join(dir, "junk.onnx")
	if err := os.WriteFile(junk, []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		code int
		want []string
	}{
		{out, 0, []string{"kind: onnx model\n", "graph inputs: observation, action_mask\n", "graph outputs: logits, value\n", "\nsource: run-v1\n", "\narchitecture: 0x2 (value 1/2)\n"}},
		{junk, 2, []string{"not a deathstacks network file, nor an ONNX model"}},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			text, errOut, code := runBotCLI("", "inspect", tc.path)
			for _, w := range tc.want {
				if code != tc.code || !strings.Contains(text+errOut, w) {
					t.Errorf("status %d, output %q %q: want %d and %q", code, text, errOut, tc.code, w)
				}
			}
			for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
				if _, _, ok := strings.Cut(l, ": "); !ok && code == 0 {
					t.Errorf("line %q: want key: value", l)
				}
			}
		})
	}
}
