package train

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/train/metrics"
)

func TestLadderRun(t *testing.T) {
	run, err := LadderRun(fixtureRun)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadSaved(filepath.Join(fixtureRun, ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if run.Dir != fixtureRun || run.Rules != cfg.Env.Rules || run.OpeningPlies != cfg.Eval.OpeningPlies || run.Server != cfg.Server {
		t.Errorf("run %+v: want the run's rules, openings and server", run)
	}
	if run.Search != strongSearch(cfg.Search) || run.Search.Temperature != 0 {
		t.Errorf("search %+v: want the run's without noise or temperature", run.Search)
	}
	if len(run.Snapshots) != 1 {
		t.Fatalf("%d snapshots, want 1", len(run.Snapshots))
	}
	if s := run.Snapshots[0]; s.Iteration != 1 || s.Path != netPath(fixtureRun, 1) || !s.HasElapsed || s.ElapsedSec <= 0 {
		t.Errorf("snapshot %+v: want iteration 1 with its training time", s)
	}
}

// copyRun copies the files of the fixture run that keep names into a new
// directory.
func copyRun(t *testing.T, keep ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range keep {
		data, err := os.ReadFile(filepath.Join(fixtureRun, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLadderRunErrors(t *testing.T) {
	snapshot := filepath.Join(netsDir, "net-000001.dsnn")
	badMetrics := copyRun(t, ConfigFile, snapshot)
	if err := os.WriteFile(filepath.Join(badMetrics, metrics.File), []byte("{\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, dir, want string
	}{
		{"no config", copyRun(t, snapshot), ConfigFile},
		{"no snapshots", copyRun(t, ConfigFile), "no network snapshots"},
		{"bad metrics", badMetrics, "line 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := LadderRun(tc.dir); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
