package train

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/checkpoint"
	"github.com/deathstacks/deathstacks/train/inspect"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

func TestInspect(t *testing.T) {
	dir := t.TempDir()
	cfg := plainSmokeConfig(t, dir)
	if _, err := Run(context.Background(), cfg, RunOptions{Iterations: 2}); err != nil {
		t.Fatal(err)
	}
	player := filepath.Join(t.TempDir(), "player.dsnn")
	if err := Export(dir, player, ExportOptions{Simulations: 7}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, kind string
		want             []string
	}{
		{"checkpoint", checkpoint.Path(dir, 2), inspect.KindCheckpoint, []string{
			"kind: checkpoint (checksum OK)", "config: smoke", "iteration: 2", "replay buffer: ", "search: simulations=",
		}},
		{"network snapshot", checkpoint.NetPath(dir, 1), inspect.KindNetwork, []string{
			"kind: network (checksum OK)", "iterations: 1", "run: smoke", "search: simulations=", // snapshots carry their run's search
		}},
		{"run directory", dir, inspect.KindCheckpoint, []string{
			"file: " + checkpoint.Path(dir, 2), "kind: checkpoint (checksum OK)", "iteration: 2", // its latest checkpoint
		}},
		{"older network snapshot", checkpoint.NetPath(fixtureRun, 1), inspect.KindNetwork, []string{
			"kind: network (checksum OK)", "search: simulations=4, ", "c_puct=1.25", // its run's config.yaml's, as it plays
		}},
		{"exported player", player, inspect.KindPlayer, []string{
			"kind: exported player (checksum OK)", "iterations: 2", "run: smoke", "search: simulations=7,",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := Inspect(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			ours := !strings.HasPrefix(tc.path, fixtureRun) // the fixture has its own architecture
			if info.Kind != tc.kind || info.Parameters == 0 || (ours && info.Architecture != cfg.Model) {
				t.Errorf("kind %q, %d parameters, architecture %v", info.Kind, info.Parameters, info.Architecture)
			}
			var b strings.Builder
			info.WriteText(&b)
			for _, w := range append(tc.want, "network: "+info.Architecture.String(), "encoding version: ", "zeroed units: ") {
				if !strings.Contains(b.String(), w) {
					t.Errorf("no %q in\n%s", w, b.String())
				}
			}
		})
	}
	t.Run("not ours", func(t *testing.T) {
		junk := filepath.Join(t.TempDir(), "junk")
		if err := os.WriteFile(junk, []byte("hello, this is not a network file at all"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Inspect(junk); !errors.Is(err, model.ErrNotNetwork) {
			t.Errorf("junk: %v, want ErrNotNetwork", err)
		}
		if _, err := Inspect(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("missing: %v, want ErrNotExist", err)
		}
	})
}

// TestInspectRating describes the rating games of a run: its config's
// opponents, and its metrics' latest Elo on the anchor's scale.
func TestInspectRating(t *testing.T) {
	dir := t.TempDir()
	cfg := runconfig.Defaults()
	text, err := cfg.YAML()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, runconfig.File), text, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range ratedAt(16, 8, 16) {
		if err := metrics.Append(metricsPath(dir), m); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ file, want string }{
		{runconfig.File, "evaluation: every 16 iterations, 8 games against each of greedy, the anchor az:model=anchor,sims=100,time=0s, 1 earlier network\n"},
		{metrics.File, " Elo ±205, the anchor at 0 (one fit of the rating games of 2 evaluations)\n"},
	} {
		info, err := Inspect(filepath.Join(dir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		info.WriteText(&b)
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("%s: no %q in\n%s", tc.file, tc.want, b.String())
		}
	}
}
