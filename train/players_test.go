package train

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/builtin"
	"github.com/deathstacks/deathstacks/train/checkpoint"
	"github.com/deathstacks/deathstacks/train/inspect"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// smokeRun trains one smoke iteration into a temporary directory.
func smokeRun(t testing.TB) (dir string, cfg runconfig.Config) {
	t.Helper()
	dir = t.TempDir()
	cfg = plainSmokeConfig(t, dir)
	if _, err := Run(context.Background(), cfg, RunOptions{Iterations: 1}); err != nil {
		t.Fatal(err)
	}
	return dir, cfg
}

// playAlike fails t unless the players loaded from models a and b (with
// the given simulations, the same seed) play the same opening.
func playAlike(t *testing.T, a string, simsA int, b string, simsB int) {
	t.Helper()
	pa, err := LoadPlayer(a, simsA, 5)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := LoadPlayer(b, simsB, 5)
	if err != nil {
		t.Fatal(err)
	}
	if ma, mb := movesOf(t, pa, 8), movesOf(t, pb, 8); !slices.Equal(ma, mb) {
		t.Errorf("%s played %v, %s %v", a, ma, b, mb)
	}
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

// The networks a run writes play as the run searched: an exported player
// like its checkpoint, and every network snapshot, which carries the run's
// search settings, like the checkpoint of its iteration.
func TestTrainedNetworksPlayAsTheirRun(t *testing.T) {
	dir, cfg := smokeRun(t)
	t.Run("exported player", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "player.dsnn")
		stamp := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
		if err := Export(dir, out, ExportOptions{Simulations: 24, Now: stamp}); err != nil {
			t.Fatal(err)
		}
		loaded, err := loadTrained(out)
		if err != nil {
			t.Fatal(err)
		}
		net, search := loaded.net, loaded.search
		if search.Simulations != 24 || search.DirichletEpsilon != 0 || search.Temperature != 0 {
			t.Errorf("exported search settings %+v: want 24 simulations, no noise, no temperature", search)
		}
		for key, want := range map[string]string{metaKind: metaKindPlayer, metaIteration: "1", metaExported: "2026-11-30T12:00:00Z", metaRun: "smoke"} {
			if net.Meta[key] != want {
				t.Errorf("meta %s = %q, want %q", key, net.Meta[key], want)
			}
		}
		playAlike(t, out, 0, checkpoint.Path(dir, 1), 24)
	})
	t.Run("network snapshot", func(t *testing.T) {
		snapshot := checkpoint.NetPath(dir, 1)
		loaded, err := loadTrained(snapshot)
		if err != nil {
			t.Fatal(err)
		}
		if want := strongSearch(cfg.Search); loaded.search != want || !want.Gumbel {
			t.Errorf("snapshot's search %+v, want the run's %+v", loaded.search, want)
		}
		if loaded.net.Meta[metaKind] != metaKindSnapshot || loaded.iteration != 1 || loaded.run != cfg.Name || loaded.runDir != dir {
			t.Errorf("snapshot: meta %v, iteration %d, run %q in %q", loaded.net.Meta, loaded.iteration, loaded.run, loaded.runDir)
		}
		playAlike(t, snapshot, 24, checkpoint.Path(dir, 1), 24)
		out := filepath.Join(t.TempDir(), "player.dsnn")
		if err := Export(snapshot, out, ExportOptions{}); err != nil {
			t.Fatal(err)
		}
		player, err := loadTrained(out)
		if err != nil {
			t.Fatal(err)
		}
		if player.search != loaded.search || player.net.Meta[metaKind] != metaKindPlayer || player.net.Meta[metaIteration] != "1" || player.net.Meta[metaRun] != cfg.Name {
			t.Errorf("exported snapshot: search %+v, meta %v", player.search, player.net.Meta)
		}
	})
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
			if _, err := loadTrained(path); err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("loadTrained: %v, want an error naming %s", err, path)
			}
			if _, err := LoadPlayer(path, 0, 1); err == nil {
				t.Error("LoadPlayer accepted it")
			}
		})
	}
	if _, err := loadTrained(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing file loaded")
	}
	if _, err := loadTrained(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no checkpoint") {
		t.Errorf("an empty run directory: %v, want no checkpoint", err)
	}
	bare := filepath.Join(t.TempDir(), "net.dsnn")
	net, err := model.New(model.Config{Blocks: 0, Channels: 2, ValuePlanes: 1, ValueHidden: 2}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := net.Save(bare); err != nil {
		t.Fatal(err)
	}
	if loaded, err := loadTrained(bare); err != nil || loaded.search != mcts.DefaultConfig() {
		t.Errorf("a bare network outside a run: %v, %+v: want the library's search", err, loaded)
	}
}

func TestModelsShareOneServer(t *testing.T) {
	dir, _ := smokeRun(t)
	models := NewModels(model.DefaultServerConfig(), nil)
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

// A snapshot of a run written before snapshots carried search settings
// takes them from its run's config.
func TestOldSnapshotTakesItsRunsSearch(t *testing.T) {
	snapshot := checkpoint.NetPath(fixtureRun, 1)
	cfg, err := runconfig.LoadSaved(filepath.Join(fixtureRun, runconfig.File))
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := loadTrained(snapshot)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := loaded.net.Meta[metaSearch]; ok {
		t.Fatal("the fixture's snapshot has search settings: it is not an old one")
	}
	if loaded.search != strongSearch(cfg.Search) || loaded.iteration != 1 || loaded.run != "fixture" {
		t.Errorf("old snapshot: search %+v, iteration %d, run %q: want the run's", loaded.search, loaded.iteration, loaded.run)
	}
	if err := Export(snapshot, filepath.Join(t.TempDir(), "p.dsnn"), ExportOptions{}); err != nil {
		t.Errorf("export of an old snapshot: %v", err)
	}
}

// A damaged newest checkpoint of a run directory is passed over with a
// warning that names the file, the damage and the iteration used instead.
func TestDamagedLatestCheckpointIsReported(t *testing.T) {
	// The fixture's checkpoint as iteration 1, and a damaged copy as 2.
	dir := copyRun(t, runconfig.File, filepath.Base(checkpoint.Path(fixtureRun, 1)))
	data, err := os.ReadFile(checkpoint.Path(dir, 1))
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 1
	if err := os.WriteFile(checkpoint.Path(dir, 2), data, 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, warnings string) {
		t.Helper()
		for _, want := range []string{"ckpt-000002.dsck", "checksum mismatch", "using iteration 1", "ckpt-000001.dsck"} {
			if !strings.Contains(warnings, want) {
				t.Errorf("warnings %q do not say %q", warnings, want)
			}
		}
	}
	t.Run("az player", func(t *testing.T) {
		var warn strings.Builder
		models := NewModels(model.DefaultServerConfig(), &warn)
		defer models.Close()
		if _, _, err := models.Load(dir); err != nil {
			t.Fatal(err)
		}
		check(t, warn.String())
	})
	t.Run("export", func(t *testing.T) {
		var warn strings.Builder
		out := filepath.Join(t.TempDir(), "p.dsnn")
		if err := Export(dir, out, ExportOptions{Warn: &warn}); err != nil {
			t.Fatal(err)
		}
		check(t, warn.String())
		net, err := model.Load(out)
		if err != nil || net.Meta[metaIteration] != "1" {
			t.Errorf("exported %v (%v): want iteration 1", net, err)
		}
	})
}

// TestBuiltInNetworks loads the networks compiled into the binary by
// their model names: the built-in player (az without a model) and the
// anchor (az:model=anchor), a name even where a directory has it.
func TestBuiltInNetworks(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.Mkdir(builtin.AnchorModel, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", builtin.AnchorModel} {
		t.Run(fmt.Sprintf("%q", name), func(t *testing.T) {
			p, err := LoadPlayer(name, 16, 1)
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
			models := NewModels(model.DefaultServerConfig(), io.Discard)
			defer models.Close()
			if _, search, err := models.Load(name); err != nil || search.Validate() != nil {
				t.Errorf("Models.Load(%q): %v, search settings %+v", name, err, search)
			}
			info, err := Inspect(name)
			if err != nil {
				t.Fatal(err)
			}
			if info.Kind != inspect.KindPlayer || info.Meta[metaSearch] == "" || info.Meta["trained_by"] == "" {
				t.Errorf("kind %q, metadata %v: want an exported player that says how it was trained", info.Kind, info.Meta)
			}
		})
	}
}

// TestStrongSearch checks how a run's self-play search becomes a player's:
// no noise or temperature, and the win search, when on, with a player's
// node budget at least.
func TestStrongSearch(t *testing.T) {
	player := mcts.DefaultConfig().WinSearchNodes
	tests := []struct {
		name         string
		plies, nodes int
		wantNodes    int
	}{
		{"self-play's small budget raised", 9, 5000, player},
		{"a larger budget kept", 9, 2 * player, 2 * player},
		{"off by plies stays off", 0, 5000, 5000},
		{"off by nodes stays off", 9, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mcts.DefaultConfig()
			c.WinSearchPlies, c.WinSearchNodes = tt.plies, tt.nodes
			c.DirichletEpsilon, c.Temperature, c.TemperaturePlies, c.FinalTemperature = 0.25, 1, 30, 0.5
			got := strongSearch(c)
			if got.WinSearchNodes != tt.wantNodes || got.WinSearchPlies != tt.plies {
				t.Errorf("win search %d plies %d nodes, want %d and %d", got.WinSearchPlies, got.WinSearchNodes, tt.plies, tt.wantNodes)
			}
			if got.DirichletEpsilon != 0 || got.Temperature != 0 || got.TemperaturePlies != 0 || got.FinalTemperature != 0 {
				t.Errorf("noise %v, temperature %v/%d/%v: want all off", got.DirichletEpsilon, got.Temperature, got.TemperaturePlies, got.FinalTemperature)
			}
		})
	}
}

// A network made outside a run becomes a player file as a run's does: the
// search settings it carries under the caller's, the caller's metadata,
// and its weights and steps as they were.
func TestExportNetwork(t *testing.T) {
	net, err := model.New(model.Config{Blocks: 1, Channels: 4, ValuePlanes: 1, ValueHidden: 8}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	carried := mcts.DefaultConfig()
	carried.CPuct = 2.5
	text, err := yaml.Marshal(carried)
	if err != nil {
		t.Fatal(err)
	}
	net.Meta[metaSearch], net.Meta[metaRun], net.Meta["note"] = string(text), "elsewhere", "kept"
	var before bytes.Buffer
	if _, err := net.Clone().WriteTo(&before); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "p.dsnn")
	opts := ExportOptions{Search: map[string]string{"sims": "12"}, Meta: map[string]string{"made_by": "test"}}
	if err := ExportNetwork(net, out, opts); err != nil {
		t.Fatal(err)
	}
	loaded, err := loadTrained(out)
	if err != nil {
		t.Fatal(err)
	}
	want := carried
	want.Simulations = 12
	if loaded.search != want {
		t.Errorf("search %+v, want %+v", loaded.search, want)
	}
	for key, want := range map[string]string{metaKind: metaKindPlayer, metaRun: "elsewhere", "note": "kept", "made_by": "test"} {
		if loaded.net.Meta[key] != want {
			t.Errorf("meta %s = %q, want %q", key, loaded.net.Meta[key], want)
		}
	}
	var a, b bytes.Buffer
	loaded.net.Meta, net.Meta = nil, nil
	loaded.net.WriteTo(&a)
	reread, _ := model.ReadNetwork(&before)
	reread.Meta = nil
	reread.WriteTo(&b)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the exported network's weights or steps differ from the network's")
	}
	for name, bad := range map[string]ExportOptions{
		"reserved metadata": {Meta: map[string]string{metaKind: "x"}},
		"bad search":        {Search: map[string]string{"sims": "-1"}},
		"unknown setting":   {Search: map[string]string{"no_such": "1"}},
		"bad simulations":   {Simulations: -1},
	} {
		t.Run(name, func(t *testing.T) {
			if err := ExportNetwork(net, filepath.Join(t.TempDir(), "p.dsnn"), bad); err == nil {
				t.Error("export succeeded")
			}
		})
	}
}
