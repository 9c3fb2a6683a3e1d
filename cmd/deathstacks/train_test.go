package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/train"
)

// train --resume on a directory with nothing to continue is bad input: it
// must stop at once with status 2, not start a new run.
func TestTrainResumeNothing(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		out  string
		want string
	}{
		{"missing", filepath.Join(base, "typo"), "does not exist"},
		{"empty", base, "holds no checkpoint"},
		{"file", file, "is a file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runBotCLI("", "train", "--config", "smoke", "--out", tc.out, "--resume", "--quiet")
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("status %d, stderr %q: want 2 and %q", code, errOut, tc.want)
			}
			if strings.Contains(out, "new run") {
				t.Errorf("a new run started: %q", out)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(base, "typo")); !os.IsNotExist(err) {
		t.Errorf("train --resume created the missing directory")
	}
}

// train --config partial.yaml --resume changes only what the partial
// config names, over the run's saved config.
func TestTrainConfigOnResume(t *testing.T) {
	run := t.TempDir()
	if err := os.WriteFile(filepath.Join(run, train.ConfigFile), configs.Smoke, 0o644); err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(t.TempDir(), "partial.yaml")
	if err := os.WriteFile(partial, []byte("iterations: 9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	smoke, err := train.Parse(configs.Smoke)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		arg        string
		resume     bool
		iterations int
		blocks     int
	}{
		{"resume with a partial config", partial, true, 9, smoke.Model.Blocks},
		{"resume without a config", "", true, smoke.Iterations, smoke.Model.Blocks},
		{"a new run with a partial config", partial, false, 9, train.Defaults().Model.Blocks},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := trainConfig(tc.arg, run, tc.resume)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Iterations != tc.iterations || cfg.Model.Blocks != tc.blocks {
				t.Errorf("iterations %d, model.blocks %d: want %d and %d", cfg.Iterations, cfg.Model.Blocks, tc.iterations, tc.blocks)
			}
		})
	}
}
