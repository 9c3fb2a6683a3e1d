package train

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/checkpoint"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

func TestLadderRun(t *testing.T) {
	run, err := LadderRun(fixtureRun)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := runconfig.LoadSaved(filepath.Join(fixtureRun, runconfig.File))
	if err != nil {
		t.Fatal(err)
	}
	if run.Dir != fixtureRun || run.Rules != cfg.Env.Rules || run.OpeningPlies != cfg.Eval.OpeningPlies {
		t.Errorf("run %+v: want the run's rules and openings", run)
	}
	if len(run.Snapshots) != 1 {
		t.Fatalf("%d snapshots, want 1", len(run.Snapshots))
	}
	if s := run.Snapshots[0].Search; s != strongSearch(cfg.Search) || s.Temperature != 0 {
		t.Errorf("search %+v: want the run's without noise or temperature", s)
	}
	if s := run.Snapshots[0]; s.Iteration != 1 || s.Path != checkpoint.NetPath(fixtureRun, 1) || !s.HasElapsed || s.ElapsedSec <= 0 {
		t.Errorf("snapshot %+v: want iteration 1 with its training time", s)
	}
}

// A snapshot plays the ladder with the settings it carries, as az:model=
// plays it, not with those of a config.yaml changed since (a resume with
// another config rewrites it).
func TestLadderRunSearchIsTheSnapshots(t *testing.T) {
	snapshot := filepath.Join(checkpoint.NetsDir, "net-000001.dsnn")
	dir := copyRun(t, runconfig.File, snapshot, metrics.File)
	// The fixture's snapshot predates the settings snapshots carry: give
	// it those of its run.
	cfg, err := runconfig.LoadSaved(filepath.Join(dir, runconfig.File))
	if err != nil {
		t.Fatal(err)
	}
	net, err := model.Load(filepath.Join(dir, snapshot))
	if err != nil {
		t.Fatal(err)
	}
	meta, err := snapshotMeta(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	maps.Copy(net.Meta, meta)
	if err := net.Save(filepath.Join(dir, snapshot)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, runconfig.File)
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(text), "c_puct: 1.25", "c_puct: 3", 1)
	if changed == string(text) {
		t.Fatal("the fixture's config has no c_puct: 1.25")
	}
	if err := os.WriteFile(path, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := LadderRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	own, err := loadTrained(filepath.Join(dir, snapshot))
	if err != nil {
		t.Fatal(err)
	}
	if got := run.Snapshots[0].Search; got != own.search || got != strongSearch(cfg.Search) {
		t.Errorf("search %+v: want the snapshot's own %+v", got, own.search)
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
	snapshot := filepath.Join(checkpoint.NetsDir, "net-000001.dsnn")
	badMetrics := copyRun(t, runconfig.File, snapshot)
	if err := os.WriteFile(filepath.Join(badMetrics, metrics.File), []byte("{\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, dir, want string
	}{
		{"no config", copyRun(t, snapshot), runconfig.File},
		{"no snapshots", copyRun(t, runconfig.File), "no network snapshots"},
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
