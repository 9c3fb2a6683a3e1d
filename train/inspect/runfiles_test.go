package inspect

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// TestRunFile describes each file of a run directory that holds no
// network by its name, and leaves the others to the caller.
func TestRunFile(t *testing.T) {
	dir := t.TempDir()
	text, err := runconfig.Defaults().YAML()
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		name, path, kind string
		ours             bool
		want             string // a line of its text, or of its error
	}{
		{"config", write(runconfig.File, text), KindConfig, true, "config: default\n"},
		{"metrics without iterations", write(metrics.File, nil), KindMetrics, true, "iterations: none yet\n"},
		{"not a PNG", write("loss.png", []byte("not an image")), KindPlot, true, "nor a PNG image"},
		{"not an ONNX model", write("net.onnx", []byte("not a model")), KindONNX, true, "nor an ONNX model"},
		{"a network's name", write("net-000001.dsnn", nil), "", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, ok, err := RunFile(tc.path)
			if ok != tc.ours {
				t.Fatalf("ok %v, want %v", ok, tc.ours)
			}
			if !ok {
				return
			}
			if err != nil {
				if !errors.Is(err, model.ErrNotNetwork) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("error %v, want ErrNotNetwork with %q", err, tc.want)
				}
				return
			}
			var b strings.Builder
			info.WriteText(&b)
			if info.Kind != tc.kind || !strings.Contains(b.String(), tc.want) {
				t.Errorf("kind %q, want %q; no %q in\n%s", info.Kind, tc.kind, tc.want, b.String())
			}
		})
	}
}
