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
	args := []string{"bench", "nn", "--config", tiny, "--seconds", "0.02", "--batches", "1,2", "--clients", "3", "--train-batch", "2"}
	// lines is the pattern of the measured lines, each starting with
	// prefix.
	lines := func(prefix string) string {
		const rate = `evals/s=\d+ gflops=\d+\.\d share=\d+\.\d%`
		return prefix + `raw batch=1 ` + rate + "\n" +
			prefix + `raw batch=2 ` + rate + "\n" +
			prefix + `server clients=3 ` + rate + "\n" +
			prefix + `train batch=2 samples/s=\d+ gflops=\d+\.\d share=\d+\.\d%` + "\n"
	}
	const peak = `^peak cores=\d+ gflops=\d+\.\d` + "\n"
	for _, tc := range []struct {
		name  string
		extra []string
		want  string
	}{
		{"fused", nil, peak + lines("") + `$`},
		{"compare", []string{"--compare"}, peak + lines("") + lines("stock ") + `$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runBotCLI("", append(args, tc.extra...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !regexp.MustCompile(tc.want).MatchString(out) {
				t.Errorf("output %q does not match %q", out, tc.want)
			}
			if !strings.Contains(errOut, "1x4") {
				t.Errorf("stderr %q does not describe the 1x4 network", errOut)
			}
		})
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
