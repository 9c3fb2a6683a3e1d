package train

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/model"
)

// smokeRun trains one smoke iteration into a temporary directory.
func smokeRun(t testing.TB) (dir string, cfg Config) {
	t.Helper()
	dir = t.TempDir()
	cfg = plainSmokeConfig(t, dir)
	if _, err := Run(context.Background(), cfg, RunOptions{Iterations: 1}); err != nil {
		t.Fatal(err)
	}
	return dir, cfg
}

// movesOf plays n plies of a game with p, from the start.
func movesOf(t *testing.T, p mcts.Player, n int) []env.Move {
	t.Helper()
	g := env.NewGame(env.DefaultRules())
	var out []env.Move
	for i := 0; i < n && !g.Status().Over(); i++ {
		d, err := p.Choose(g)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Play(d.Move); err != nil {
			t.Fatal(err)
		}
		out = append(out, d.Move)
	}
	return out
}

func TestExportPlaysLikeTheCheckpoint(t *testing.T) {
	dir, _ := smokeRun(t)
	out := filepath.Join(t.TempDir(), "player.dsnn")
	stamp := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	if err := Export(dir, out, ExportOptions{Simulations: 24, Now: stamp}); err != nil {
		t.Fatal(err)
	}
	net, search, err := loadNetwork(out)
	if err != nil {
		t.Fatal(err)
	}
	if search.Simulations != 24 || search.DirichletEpsilon != 0 || search.Temperature != 0 {
		t.Errorf("exported search settings %+v: want 24 simulations, no noise, no temperature", search)
	}
	for key, want := range map[string]string{metaKind: metaKindPlayer, metaIteration: "1", metaExported: "2026-11-30T12:00:00Z", metaRun: "smoke"} {
		if net.Meta[key] != want {
			t.Errorf("meta %s = %q, want %q", key, net.Meta[key], want)
		}
	}
	exported, err := LoadPlayer(out, 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	fromCheckpoint, err := LoadPlayer(checkpointPath(dir, 1), 24, 5)
	if err != nil {
		t.Fatal(err)
	}
	a, b := movesOf(t, exported, 8), movesOf(t, fromCheckpoint, 8)
	if len(a) != len(b) {
		t.Fatalf("%d and %d moves", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("ply %d: exported player %v, checkpoint %v", i, a[i], b[i])
		}
	}
}

func TestLoadNetworkErrors(t *testing.T) {
	dir, _ := smokeRun(t)
	out := filepath.Join(t.TempDir(), "player.dsnn")
	if err := Export(dir, out, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)-40] ^= 1
	tests := []struct {
		name string
		data []byte
	}{
		{"truncated", good[:len(good)/2]},
		{"corrupted", flipped},
		{"foreign", []byte("#!/bin/sh\necho not a network\n")},
		{"empty", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.dsnn")
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, _, err := loadNetwork(path); err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("loadNetwork: %v, want an error naming %s", err, path)
			}
			if _, err := LoadPlayer(path, 0, 1); err == nil {
				t.Error("LoadPlayer accepted it")
			}
		})
	}
	if _, _, err := loadNetwork(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing file loaded")
	}
	if _, _, err := loadNetwork(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no checkpoint") {
		t.Errorf("an empty run directory: %v, want no checkpoint", err)
	}
	if err := Export(filepath.Join(dir, "nets", "net-000001.dsnn"), out, ExportOptions{}); err == nil {
		t.Error("exported from a bare network file, which has no run config")
	}
}

func TestModelsShareOneServer(t *testing.T) {
	dir, _ := smokeRun(t)
	models := NewModels(model.DefaultServerConfig())
	defer models.Close()
	a, _, err := models.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := models.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Error("two loads of one model got two servers")
	}
	spec, err := players.ParseSpec("az:model=" + dir + ",sims=16")
	if err != nil {
		t.Fatal(err)
	}
	p, err := players.NewPlayer(spec, 3, models.Load)
	if err != nil {
		t.Fatal(err)
	}
	if moves := movesOf(t, p, 2); len(moves) != 2 {
		t.Errorf("az player from a run directory played %v", moves)
	}
}

func TestBuiltInPlayer(t *testing.T) {
	// The built-in player loads from the binary: az without a model.
	p, err := LoadPlayer("", 16, 1)
	if err != nil {
		t.Fatal(err)
	}
	g := env.NewGame(env.DefaultRules())
	d, err := p.Choose(g)
	if err != nil {
		t.Fatal(err)
	}
	if pos := g.Position(); !pos.IsLegal(d.Move, true) || d.Simulations != 16 {
		t.Errorf("move %v after %d simulations: want a legal move after 16", d.Move, d.Simulations)
	}
	models := NewModels(model.DefaultServerConfig())
	defer models.Close()
	if _, search, err := models.Load(""); err != nil || search.Validate() != nil {
		t.Errorf("Models.Load(\"\"): %v, search settings %+v", err, search)
	}
	info, err := Inspect("")
	if err != nil {
		t.Fatal(err)
	}
	if info.Kind != KindPlayer || info.Meta[metaSearch] == "" || info.Meta["trained_by"] == "" {
		t.Errorf("the built-in player: kind %q, metadata %v: want an exported player that says how it was trained", info.Kind, info.Meta)
	}
}
