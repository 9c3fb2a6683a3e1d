package train

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/checkpoint"
	"github.com/deathstacks/deathstacks/train/internal/encodingsum"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// fixtureRun is a run directory written by the release that introduced
// checkpoint, replay and network format version 1 (one iteration of a tiny
// network): every file in it must still load, and writing what was loaded
// must give the same bytes. The other tests use it as their run too.
const fixtureRun = "testdata/run-v1"

func TestReadsRunOfFormatVersion1(t *testing.T) {
	cfg, path, ck := loadFixtureRun(t, fixtureRun)
	if cfg.Name != "fixture" || cfg.Model.Channels != 2 {
		t.Fatalf("config: name %q, %d channels: want fixture, 2", cfg.Name, cfg.Model.Channels)
	}
	// A version-1 checkpoint's player is its trainer's network.
	if !sameWeights(ck.Player, ck.Trainer.Network()) || ck.Player.Steps() != ck.Trainer.Network().Steps() {
		t.Error("the version-1 checkpoint's player is not its trainer's network")
	}
	// Written again it is a version-2 file, which reads back to the same
	// run and writes the same bytes again.
	again := rewriteCheckpoint(t, path, ck)
	ck2, err := checkpoint.Load(again, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var enc1, enc2 bytes.Buffer
	if _, err := ck.Trainer.WriteTo(&enc1); err != nil {
		t.Fatal(err)
	}
	if _, err := ck2.Trainer.WriteTo(&enc2); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(enc1.Bytes(), enc2.Bytes()) || !sameWeights(ck2.Player, ck.Player) || ck2.Replay.Len() != ck.Replay.Len() || ck2.State.Iteration != ck.State.Iteration {
		t.Error("the checkpoint rewritten in version 2 reads back to another run")
	}
	checkSameBytes(t, rewriteCheckpoint(t, again, ck2), again, "a version-2 checkpoint read and written again")
	checkFixtureNetworks(t, fixtureRun, ck.Player)
}

// fixtureRunV2 is a run directory of checkpoint version 2 (a player of
// its own beside the trainer), made by train/internal/fixtures from the
// first fixture's config: every file in it must load, and writing the
// checkpoint that was loaded must give its bytes again.
const fixtureRunV2 = "testdata/run-v2"

func TestReadsRunOfFormatVersion2(t *testing.T) {
	_, path, ck := loadFixtureRun(t, fixtureRunV2)
	checkSameBytes(t, rewriteCheckpoint(t, path, ck), path, "the version-2 fixture's checkpoint read and written again")
	checkFixtureNetworks(t, fixtureRunV2, ck.Player)
}

// loadFixtureRun loads the fixture run in dir: its config and its one
// checkpoint, of iteration 1 with its positions in the replay.
func loadFixtureRun(t *testing.T, dir string) (runconfig.Config, string, *checkpoint.Loaded) {
	t.Helper()
	cfg, err := runconfig.LoadSaved(filepath.Join(dir, runconfig.File))
	if err != nil {
		t.Fatal(err)
	}
	path, skipped, err := checkpoint.Latest(dir)
	if err != nil || len(skipped) > 0 {
		t.Fatalf("latest checkpoint: %v (skipped %v)", err, skipped)
	}
	ck, err := checkpoint.Load(path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if ck.State.Iteration != 1 || ck.State.Positions != int64(ck.Replay.Len()) || ck.Replay.Len() == 0 {
		t.Errorf("state: iteration %d, %d positions, replay of %d: want iteration 1 and the positions in the replay",
			ck.State.Iteration, ck.State.Positions, ck.Replay.Len())
	}
	return cfg, path, ck
}

// rewriteCheckpoint writes ck again, in the current version, into a file of
// path's name in a temporary directory, and returns its path.
func rewriteCheckpoint(t *testing.T, path string, ck *checkpoint.Loaded) string {
	t.Helper()
	again := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := checkpoint.Save(again, ck.State, ck.Player, ck.Trainer, ck.Replay.Snapshot()); err != nil {
		t.Fatal(err)
	}
	return again
}

// checkSameBytes fails the test unless the file at path holds the bytes of
// the file at want: what names the former.
func checkSameBytes(t *testing.T, path, want, what string) {
	t.Helper()
	got, err1 := os.ReadFile(path)
	exp, err2 := os.ReadFile(want)
	if err1 != nil || err2 != nil || !bytes.Equal(got, exp) {
		t.Errorf("%s: %d bytes, want the %d of %s (%v, %v)", what, len(got), len(exp), want, err1, err2)
	}
}

// checkFixtureNetworks checks that the fixture run's one network snapshot,
// and the run directory played as a model, are player, bit for bit.
func checkFixtureNetworks(t *testing.T, dir string, player *model.Network) {
	t.Helper()
	snaps, err := checkpoint.ListNets(dir)
	if err != nil || len(snaps) != 1 {
		t.Fatalf("network snapshots: %v, %v: want one", snaps, err)
	}
	net, err := model.Load(snaps[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if !sameWeights(net, player) || net.Steps() != player.Steps() {
		t.Error("the iteration's network snapshot is not the checkpoint's player")
	}
	run, err := loadTrained(dir)
	if err != nil {
		t.Fatalf("load the run as a model: %v", err)
	}
	if !sameWeights(run.net, player) || run.iteration != 1 {
		t.Errorf("the run directory plays iteration %d, not the checkpoint's player", run.iteration)
	}
}

// TestFixturesFollowTheEncoding fails when the observation encoding, the
// action encoding or the network file format is not the one the version
// fixtures and the built-in player were made for (testdata/encoding.txt):
// the procedure of train/internal/fixtures makes them again.
func TestFixturesFollowTheEncoding(t *testing.T) {
	recorded, err := encodingsum.Read(filepath.Join("testdata", "encoding.txt"))
	if err != nil {
		t.Fatal(err)
	}
	now, err := encodingsum.Current()
	if err != nil {
		t.Fatal(err)
	}
	const procedure = "see train/internal/fixtures: go generate ./train, and a new built-in player if it reads another encoding"
	switch {
	case recorded == now:
	case recorded.EncodingVersion == now.EncodingVersion && recorded.FormatVersion == now.FormatVersion:
		t.Errorf("the observation or action encoding changed (observations %s, moves %s; recorded %s, %s) under the same env.EncodingVersion %d: "+
			"bump it, so that networks of the old encoding are refused rather than fed the wrong planes; then %s",
			now.Observations[:12], now.Moves[:12], recorded.Observations[:12], recorded.Moves[:12], now.EncodingVersion, procedure)
	default:
		t.Errorf("encoding version %d and file format %d, but the fixtures were made for %d and %d: %s",
			now.EncodingVersion, now.FormatVersion, recorded.EncodingVersion, recorded.FormatVersion, procedure)
	}
}

// sameWeights reports whether two networks have the same weights, bit for bit.
func sameWeights(a, b *model.Network) bool {
	wa, wb := a.Weights(), b.Weights()
	if len(wa) != len(wb) {
		return false
	}
	for i := range wa {
		if !slices.Equal(wa[i].Data, wb[i].Data) {
			return false
		}
	}
	return true
}
