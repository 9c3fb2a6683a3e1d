package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestBenchNN(t *testing.T) {
	dir := t.TempDir()
	tiny := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(tiny, []byte("seed: 3\nmodel:\n  blocks: 1\n  channels: 4\nserver:\n  max_batch: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runBotCLI("", "bench", "nn", "--config", tiny, "--seconds", "0.02", "--batches", "1,2", "--clients", "3", "--train-batch", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := regexp.MustCompile(`^raw batch=1 evals/s=\d+
raw batch=2 evals/s=\d+
server clients=3 evals/s=\d+
train batch=2 samples/s=\d+
$`)
	if !want.MatchString(out) {
		t.Errorf("output %q", out)
	}
	if !strings.Contains(errOut, "1x4") {
		t.Errorf("stderr %q does not describe the 1x4 network", errOut)
	}

	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("model:\n  blocks: 1\n  chanels: 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"bench", "nn", "--config", bad},
		{"bench", "nn", "--config", filepath.Join(dir, "missing.yaml")},
		{"bench", "nn", "--batches", "0"},
		{"bench", "nn", "--seconds", "-1"},
	} {
		if _, errOut, code := runBotCLI("", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errOut)
		}
	}
}
