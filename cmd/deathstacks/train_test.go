package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/train/runconfig"
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

// train --init names a network a new run starts from: with --resume, of
// another architecture than the config's, or missing, it is bad input
// (status 2) before anything is written.
func TestTrainInitRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"with resume", []string{"--init", "anchor", "--resume"}, "--init starts a new run"},
		{"other architecture", []string{"--init", "anchor"}, "init is \"anchor\": its network has model."},
		{"missing", []string{"--init", filepath.Join(t.TempDir(), "none.dsnn")}, "none.dsnn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			out, errOut, code := runBotCLI("", append([]string{"train", "--config", "smoke", "--out", dir, "--quiet"}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("status %d, stderr %q: want 2 and %q", code, errOut, tc.want)
			}
			if strings.Contains(out, "new run") {
				t.Errorf("a run started: %q", out)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the run directory was made (%v): a refused run leaves nothing", err)
			}
		})
	}
}

// train --config partial.yaml --resume changes only what the partial
// config names, over the run's saved config.
func TestTrainConfigOnResume(t *testing.T) {
	run := t.TempDir()
	if err := os.WriteFile(filepath.Join(run, runconfig.File), configs.Smoke, 0o644); err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(t.TempDir(), "partial.yaml")
	if err := os.WriteFile(partial, []byte("iterations: 9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	smoke, err := runconfig.Parse(configs.Smoke)
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
		{"a new run with a partial config", partial, false, 9, runconfig.Defaults().Model.Blocks},
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

func TestExportMetaAndInspect(t *testing.T) {
	run, err := filepath.Abs(filepath.Join("..", "..", "train", "testdata", "run-v1"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "player.dsnn")
	if _, errOut, code := runBotCLI("", "export", "--checkpoint", run, "--out", out, "--meta", "note=a test", "--meta", "trained_by=deathstacks train"); code != 0 {
		t.Fatalf("export: status %d: %s", code, errOut)
	}
	text, errOut, code := runBotCLI("", "inspect", out)
	if code != 0 {
		t.Fatalf("inspect: status %d: %s", code, errOut)
	}
	// The command records the paths as they were typed, absolute ones too.
	for _, want := range []string{"note: a test\n", "trained_by: deathstacks train\n", "export_command: deathstacks export --checkpoint " + run + " --out " + out + " --meta 'note=a test' --meta 'trained_by=deathstacks train'\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, text)
		}
	}
	searched := filepath.Join(t.TempDir(), "searched.dsnn")
	if _, errOut, code := runBotCLI("", "export", "--checkpoint", run, "--out", searched, "--search", "contempt=0.25", "--search", "temp=0"); code != 0 {
		t.Fatalf("export --search: status %d: %s", code, errOut)
	}
	if text, _, _ := runBotCLI("", "inspect", searched); !strings.Contains(text, "contempt=0.25") {
		t.Errorf("export --search contempt=0.25: not in the player's settings:\n%s", text)
	}
	// An explicit --sims 0 with a time is a timed player without a
	// simulation limit, not "the run's simulations".
	timed := filepath.Join(t.TempDir(), "timed.dsnn")
	if _, errOut, code := runBotCLI("", "export", "--checkpoint", run, "--out", timed, "--sims", "0", "--search", "time=1s"); code != 0 {
		t.Fatalf("export --sims 0 --search time=1s: status %d: %s", code, errOut)
	}
	if text, _, _ := runBotCLI("", "inspect", timed); !strings.Contains(text, "simulations=0, time=1s") {
		t.Errorf("export --sims 0 --search time=1s: the player's settings are not 0 simulations and 1s:\n%s", text)
	}
	for _, bad := range [][]string{{"--meta", "novalue"}, {"--sims", "0"}, {"--sims", "9", "--search", "simulations=9"}, {"--meta", "run=x"}, {"--meta", "export_command=x"}, {"--meta", "a=1", "--meta", "a=2"},
		{"--search", "nosuch=1"}, {"--search", "contempt=7"}, {"--search", "simulations=0"}, {"--sims", "-1"}} {
		args := append([]string{"export", "--checkpoint", run, "--out", out}, bad...)
		if _, errOut, code := runBotCLI("", args...); code != 2 {
			t.Errorf("%v: status %d, want 2 (stderr %q)", bad, code, errOut)
		}
	}
	// Without a file, inspect describes the built-in player, whose
	// metadata says how it was made.
	text, errOut, code = runBotCLI("", "inspect")
	if code != 0 || !strings.Contains(text, "kind: exported player") || !strings.Contains(text, "export_command: deathstacks export") || !strings.Contains(text, "trained_by: deathstacks train") {
		t.Errorf("inspect of the built-in player: status %d, stderr %q, output:\n%s", code, errOut, text)
	}
}

// A bad setting in a config file is said once, at its key, with the file
// and the line: FILE:LINE: key is ...: want ...
func TestTrainConfigErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, text, want string }{
		{"bad lr", "optim:\n  lr: -0.01\n", "CONFIG:2: optim.lr is -0.01: want more than 0"},
		{"two problems", "optim:\n  lr: 0\nselfplay:\n  games_per_iteration: 0\n",
			"CONFIG:2: optim.lr is 0: want more than 0\nCONFIG:4: selfplay.games_per_iteration is 0: want 1 or more"},
		{"unknown key", "seed: 1\nsed: 2\n", "CONFIG:2: sed is not a known key"},
		{"bare duration", "time_limit: 90\n", `CONFIG:1: time_limit is "90": want a duration such as 90s`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, errOut, code := runBotCLI("", "train", "--config", path, "--out", filepath.Join(dir, "run"))
			want := "deathstacks train: " + strings.ReplaceAll(tc.want, "CONFIG", path)
			if code != 2 || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != strings.Count(want, "\n")+1 {
				t.Errorf("status %d, stderr %q: want 2 and %q", code, errOut, want)
			}
		})
	}
}
