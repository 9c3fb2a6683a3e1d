package train

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/model/codec"
	"github.com/deathstacks/deathstacks/train/replay"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// A checkpoint file holds everything a run needs to go on:
//
//	magic "DSTKCKPT", format version (uint32, little-endian)
//	state: length (uint32) and JSON ([CheckpointState], with the config)
//	the run's player: a network (see package model; from version 2)
//	the trainer: network and optimiser state (see package model)
//	the replay buffer (see [replay.Buffer.Encode])
//	CRC-32C (uint32) of all the bytes before it
//
// The run's player is the network a checkpoint plays, exports and starts
// another run from (see runconfig.OptimConfig.AverageIterations); the trainer's
// network goes on training. A version-1 checkpoint has no player of its
// own: its trainer's network is its player. Checkpoints are written
// atomically as <run>/ckpt-<iteration>.dsck; the player alone is also
// kept for every iteration as <run>/nets/net-<iteration>.dsnn, small
// files that the ladder rates.
const (
	checkpointMagic = "DSTKCKPT"
	checkpointExt   = ".dsck"
	netsDir         = "nets"
	netExt          = ".dsnn"
)

// CheckpointVersion is the version of the checkpoints this build writes;
// it reads every version from 1 on. The version fixtures are named after
// it (train/testdata/run-v<version>).
const CheckpointVersion = 2

var (
	checkpointName = regexp.MustCompile(`^ckpt-(\d{6,})\.dsck$`)
	netName        = regexp.MustCompile(`^net-(\d{6,})\.dsnn$`)
)

// ErrNoCheckpoint is returned when a run directory holds no checkpoint.
var ErrNoCheckpoint = errors.New("no checkpoint")

// ErrBadCheckpoint matches the errors of a file that is not a whole
// checkpoint of this program's format: the caller gave the wrong file, or a
// damaged one.
var ErrBadCheckpoint = errors.New("not a readable deathstacks checkpoint")

// badCheckpoint is a reason a file is not a readable checkpoint; it
// matches [ErrBadCheckpoint].
type badCheckpoint string

func (e badCheckpoint) Error() string      { return string(e) }
func (badCheckpoint) Is(target error) bool { return target == ErrBadCheckpoint }

// CheckpointState is the bookkeeping of a run at the end of an iteration.
type CheckpointState struct {
	// Iteration is the number of iterations completed.
	Iteration int `json:"iteration"`
	// ElapsedSec is the run's wall-clock time through this iteration,
	// summed over its sessions.
	ElapsedSec float64 `json:"elapsed_sec"`
	// CPUSec is the CPU time the run's processes used through this
	// iteration, summed over its sessions; 0 where it is not read.
	CPUSec float64 `json:"cpu_sec,omitempty"`
	// Created is when the checkpoint was written.
	Created time.Time `json:"created"`
	// Games, Positions and TrainSteps count the whole run's work.
	Games      int64 `json:"games"`
	Positions  int64 `json:"positions"`
	TrainSteps int64 `json:"train_steps"`
	// BestIteration was the network that passed the gate of an evaluation
	// option since removed; it is always 0, kept so that the state reads
	// and writes as it did.
	BestIteration int `json:"best_iteration"`
	// ScheduleProgress is how far the learning-rate schedule that follows
	// the run (optim.total_steps 0) has gone at the end of this iteration,
	// from 0 (1 is the end): a resumed run goes on from it (see
	// runconfig.SchedulePlan).
	ScheduleProgress float64 `json:"schedule_progress,omitempty"`
	// Config is the run's configuration in YAML.
	Config string `json:"config"`
	// Remote is how far the run has taken games from other machines (a
	// [RemoteSource]'s cursor); absent in a run on one machine.
	Remote json.RawMessage `json:"remote,omitempty"`
}

// loadedCheckpoint is a checkpoint read back: its state, the run's
// player, the trainer and the replay buffer.
type loadedCheckpoint struct {
	State   CheckpointState
	Player  *model.Network
	Trainer *model.Trainer
	Replay  *replay.Buffer
}

// checkpointPath returns the path of the checkpoint of an iteration.
func checkpointPath(runDir string, iteration int) string {
	return filepath.Join(runDir, fmt.Sprintf("ckpt-%06d%s", iteration, checkpointExt))
}

// netPath returns the path of the network snapshot of an iteration.
func netPath(runDir string, iteration int) string {
	return filepath.Join(runDir, netsDir, fmt.Sprintf("net-%06d%s", iteration, netExt))
}

// saveCheckpoint writes a checkpoint atomically: the run's state, its
// player, the trainer and the replay buffer's snapshot rb, which it ends.
func saveCheckpoint(path string, st CheckpointState, player *model.Network, tr *model.Trainer, rb *replay.Snapshot) error {
	defer rb.Release() // written or not, the buffer's Adds go on
	return codec.WriteFileAtomic(path, func(w io.Writer) error {
		state, err := json.Marshal(st)
		if err != nil {
			return err
		}
		cw := codec.NewWriter(w)
		cw.Header(checkpointMagic, CheckpointVersion)
		cw.U32(uint32(len(state)))
		cw.Bytes(state)
		if _, err := player.WriteTo(cw); err != nil {
			return err
		}
		if _, err := tr.WriteTo(cw); err != nil {
			return err
		}
		if err := rb.Encode(cw); err != nil {
			return err
		}
		cw.Sum()
		return cw.Err()
	})
}

// errCorrupt is the codec's error for a damaged checkpoint.
var errCorrupt = errors.New("corrupt")

// checkpointBody reads a checkpoint file, checks its magic, version and
// checksum, and returns its state and the rest: the sections after the
// state, from the first network on (the player's, or the trainer's in
// version 1).
func checkpointBody(path string) (CheckpointState, *checkpointRest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return CheckpointState{}, nil, err
	}
	const head = len(checkpointMagic) + 8 // magic, version, state length
	r := codec.NewReader(bytes.NewReader(data), errCorrupt, io.ErrUnexpectedEOF)
	version, err := r.HeaderVersions(checkpointMagic, 1, CheckpointVersion)
	switch {
	case len(data) < len(checkpointMagic) || errors.Is(err, codec.ErrBadMagic):
		return CheckpointState{}, nil, badCheckpoint("not a deathstacks checkpoint (bad magic)")
	case len(data) < head+4:
		return CheckpointState{}, nil, badCheckpoint(fmt.Sprintf("truncated (%d bytes)", len(data)))
	case err != nil:
		return CheckpointState{}, nil, badCheckpoint(err.Error())
	}
	body, tail := data[:len(data)-4], data[len(data)-4:]
	if codec.Checksum(body) != binary.LittleEndian.Uint32(tail) {
		return CheckpointState{}, nil, badCheckpoint("checksum mismatch: the file is corrupt or truncated")
	}
	n := int(r.U32())
	if n > len(body)-head {
		return CheckpointState{}, nil, badCheckpoint(fmt.Sprintf("state of %d bytes overruns the file", n))
	}
	var st CheckpointState
	if err := json.Unmarshal(body[head:head+n], &st); err != nil {
		return CheckpointState{}, nil, badCheckpoint("state: " + err.Error())
	}
	return st, &checkpointRest{Reader: bytes.NewReader(body[head+n:]), version: version}, nil
}

// checkpointRest is what follows a checkpoint's state.
type checkpointRest struct {
	*bytes.Reader
	version uint32
}

// loadCheckpoint reads a whole checkpoint: state, player, trainer (with
// the training settings of cfg) and replay buffer (sized by cfg).
func loadCheckpoint(path string, cfg runconfig.Config) (*loadedCheckpoint, error) {
	st, r, err := checkpointBody(path)
	if err != nil {
		return nil, fmt.Errorf("load checkpoint %s: %w", path, err)
	}
	return decodeCheckpoint(path, st, r, cfg)
}

// decodeCheckpoint reads the player, trainer and replay buffer of the
// checkpoint at path, whose state st [checkpointBody] read, from r.
func decodeCheckpoint(path string, st CheckpointState, r *checkpointRest, cfg runconfig.Config) (*loadedCheckpoint, error) {
	var player *model.Network
	if r.version >= 2 {
		var err error
		if player, err = model.ReadNetwork(r); err != nil {
			return nil, fmt.Errorf("load checkpoint %s: the player: %w", path, err)
		}
	}
	tr, err := model.ReadTrainer(r, cfg.Optim.TrainerConfig())
	if err != nil {
		return nil, fmt.Errorf("load checkpoint %s: %w", path, err)
	}
	if player == nil {
		player = tr.Network().Clone()
	} else if player.Config() != tr.Network().Config() {
		return nil, fmt.Errorf("load checkpoint %s: %w", path, badCheckpoint(fmt.Sprintf("its player is a %v network, its trainer's a %v", player.Config(), tr.Network().Config())))
	}
	rb, err := replay.Decode(r, cfg.Replay)
	if err != nil {
		return nil, fmt.Errorf("load checkpoint %s: %w", path, err)
	}
	return &loadedCheckpoint{State: st, Player: player, Trainer: tr, Replay: rb}, nil
}

// readCheckpointNetwork reads only the state and the run's player of a
// checkpoint (the whole file is still checksummed): its first network.
func readCheckpointNetwork(path string) (CheckpointState, *model.Network, error) {
	st, r, err := checkpointBody(path)
	if err != nil {
		return CheckpointState{}, nil, fmt.Errorf("load checkpoint %s: %w", path, err)
	}
	net, err := model.ReadNetwork(r)
	if err != nil {
		return CheckpointState{}, nil, fmt.Errorf("load checkpoint %s: %w", path, err)
	}
	return st, net, nil
}

// numberedFile is a saved file of a run: a checkpoint or a network snapshot.
type numberedFile struct {
	Iteration int
	Path      string
}

// listNumbered lists the files of dir whose names match pattern (with the
// iteration as its first group), oldest iteration first.
func listNumbered(dir string, pattern *regexp.Regexp) ([]numberedFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []numberedFile
	for _, e := range entries {
		m := pattern.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		it, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		out = append(out, numberedFile{Iteration: it, Path: filepath.Join(dir, e.Name())})
	}
	slices.SortFunc(out, func(a, b numberedFile) int { return a.Iteration - b.Iteration })
	return out, nil
}

// listCheckpoints lists the checkpoints of a run directory, oldest first.
func listCheckpoints(runDir string) ([]numberedFile, error) {
	return listNumbered(runDir, checkpointName)
}

// listNetworkSnapshots lists the per-iteration network files of a run
// directory, oldest first.
func listNetworkSnapshots(runDir string) ([]numberedFile, error) {
	return listNumbered(filepath.Join(runDir, netsDir), netName)
}

// latestCheckpoint returns the newest checkpoint of a run directory that
// reads back whole (a damaged newer one is skipped, with a warning in
// skipped), or ErrNoCheckpoint.
func latestCheckpoint(runDir string) (path string, skipped []error, err error) {
	all, err := listCheckpoints(runDir)
	if err != nil {
		return "", nil, fmt.Errorf("list checkpoints in %s: %w", runDir, err)
	}
	for i := len(all) - 1; i >= 0; i-- {
		if _, _, err := checkpointBody(all[i].Path); err != nil {
			skipped = append(skipped, fmt.Errorf("%s: %w", all[i].Path, err))
			continue
		}
		return all[i].Path, skipped, nil
	}
	return "", skipped, fmt.Errorf("%s: %w", runDir, ErrNoCheckpoint)
}

// pruneCheckpoints deletes all but the newest keep checkpoints.
func pruneCheckpoints(runDir string, keep int) error {
	all, err := listCheckpoints(runDir)
	if err != nil {
		return err
	}
	for i := 0; i < len(all)-keep; i++ {
		if err := os.Remove(all[i].Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}
