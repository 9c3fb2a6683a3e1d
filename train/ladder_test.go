package train

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/model"
)

// ladderRun writes a fake run directory: the smoke config, a tiny network
// snapshot for each iteration, and metrics lines with the given training
// times.
func ladderRun(t *testing.T, iterations []int, elapsed map[int]float64) string {
	t.Helper()
	dir := t.TempDir()
	cfg, err := Parse(configs.Smoke)
	if err != nil {
		t.Fatal(err)
	}
	text, err := cfg.yamlText()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), text, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, netsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, it := range iterations {
		net, err := model.New(cfg.Model, rand.New(rand.NewPCG(uint64(it), 1)))
		if err != nil {
			t.Fatal(err)
		}
		if err := net.Save(netPath(dir, it)); err != nil {
			t.Fatal(err)
		}
		if sec, ok := elapsed[it]; ok {
			if err := AppendMetrics(filepath.Join(dir, MetricsFile), Metrics{Iteration: it, ElapsedSec: sec}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func TestLadderRun(t *testing.T) {
	dir := ladderRun(t, []int{1, 2, 3}, map[int]float64{1: 60, 3: 180})
	run, err := LadderRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Parse(configs.Smoke)
	if err != nil {
		t.Fatal(err)
	}
	if run.Dir != dir || run.Rules != cfg.Env.Rules || run.OpeningPlies != cfg.Eval.OpeningPlies || run.Server != cfg.Server {
		t.Errorf("run %+v: want the smoke config's rules, openings and server", run)
	}
	if run.Search != strongSearch(cfg.Search) || run.Search.Temperature != 0 {
		t.Errorf("search %+v: want the run's without noise or temperature", run.Search)
	}
	if len(run.Snapshots) != 3 {
		t.Fatalf("%d snapshots, want 3", len(run.Snapshots))
	}
	for _, s := range run.Snapshots {
		if want := s.Iteration != 2; s.Path != netPath(dir, s.Iteration) || s.HasElapsed != want || (want && s.ElapsedSec != 60*float64(s.Iteration)) {
			t.Errorf("snapshot %+v", s)
		}
	}
}

func TestLadderRunErrors(t *testing.T) {
	badMetrics := ladderRun(t, []int{1}, nil)
	if err := os.WriteFile(filepath.Join(badMetrics, MetricsFile), []byte("{\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, dir, want string
	}{
		{"no config", t.TempDir(), ConfigFile},
		{"no snapshots", ladderRun(t, nil, nil), "no network snapshots"},
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
