// Package checkpoint is the file a training run resumes from, and the
// files of a run directory numbered by iteration. A checkpoint file holds
// everything a run needs to go on:
//
//	magic "DSTKCKPT", format version (uint32, little-endian)
//	state: length (uint32) and JSON ([State], with the config)
//	the run's player: a network (see package model; from version 2)
//	the trainer: network and optimiser state (see package model)
//	the replay buffer (see [replay.Buffer.Encode])
//	CRC-32C (uint32) of all the bytes before it
//
// The run's player is the network a checkpoint plays, exports and starts
// another run from (see [runconfig.OptimConfig].AverageIterations); the
// trainer's network goes on training. A version-1 checkpoint has no player
// of its own: its trainer's network is its player. Checkpoints are written
// atomically as <run>/ckpt-<iteration>.dsck; the player alone is also
// kept for every iteration as <run>/nets/net-<iteration>.dsnn, small
// files that the ladder rates.
package checkpoint

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

// Magic starts every checkpoint file.
const Magic = "DSTKCKPT"

// ext ends the name of a checkpoint file.
const ext = ".dsck"

// NetsDir is the folder of a run directory that holds its network
// snapshots, and NetExt ends their names.
const (
	NetsDir = "nets"
	NetExt  = ".dsnn"
)

// Version is the version of the checkpoints this build writes;
// it reads every version from 1 on. The version fixtures are named after
// it (train/testdata/run-v<version>).
const Version = 2

// fileName matches the name of a checkpoint file, NetName a network
// snapshot's; the first group is the iteration.
var (
	fileName = regexp.MustCompile(`^ckpt-(\d{6,})\.dsck$`)
	NetName  = regexp.MustCompile(`^net-(\d{6,})\.dsnn$`)
)

// ErrNotFound is returned when a run directory holds no checkpoint.
var ErrNotFound = errors.New("no checkpoint")

// ErrUnreadable matches the errors of a file that is not a whole
// checkpoint of this program's format: the caller gave the wrong file, or a
// damaged one.
var ErrUnreadable = errors.New("not a readable deathstacks checkpoint")

// unreadable is a reason a file is not a readable checkpoint; it
// matches [ErrUnreadable].
type unreadable string

func (e unreadable) Error() string      { return string(e) }
func (unreadable) Is(target error) bool { return target == ErrUnreadable }

// State is the bookkeeping of a run at the end of an iteration.
type State struct {
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
	// remotegames.Source's cursor); absent in a run on one machine.
	Remote json.RawMessage `json:"remote,omitempty"`
}

// Loaded is a checkpoint read back: its state, the run's
// player, the trainer and the replay buffer.
type Loaded struct {
	State   State
	Player  *model.Network
	Trainer *model.Trainer
	Replay  *replay.Buffer
}

// Path returns the path of the checkpoint of an iteration.
func Path(runDir string, iteration int) string {
	return filepath.Join(runDir, fmt.Sprintf("ckpt-%06d%s", iteration, ext))
}

// NetPath returns the path of the network snapshot of an iteration.
func NetPath(runDir string, iteration int) string {
	return filepath.Join(runDir, NetsDir, fmt.Sprintf("net-%06d%s", iteration, NetExt))
}

// Save writes a checkpoint atomically: the run's state, its
// player, the trainer and the replay buffer's snapshot rb, which it ends.
func Save(path string, st State, player *model.Network, tr *model.Trainer, rb *replay.Snapshot) error {
	defer rb.Release() // written or not, the buffer's Adds go on
	return codec.WriteFileAtomic(path, func(w io.Writer) error {
		state, err := json.Marshal(st)
		if err != nil {
			return err
		}
		cw := codec.NewWriter(w)
		cw.Header(Magic, Version)
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

// Open reads a checkpoint file, checks its magic, version and
// checksum, and returns its state and the rest: the sections after the
// state, from the first network on (the player's, or the trainer's in
// version 1).
func Open(path string) (State, *Rest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return State{}, nil, err
	}
	const head = len(Magic) + 8 // magic, version, state length
	r := codec.NewReader(bytes.NewReader(data), errCorrupt, io.ErrUnexpectedEOF)
	version, err := r.HeaderVersions(Magic, 1, Version)
	switch {
	case len(data) < len(Magic) || errors.Is(err, codec.ErrBadMagic):
		return State{}, nil, unreadable("not a deathstacks checkpoint (bad magic)")
	case len(data) < head+4:
		return State{}, nil, unreadable(fmt.Sprintf("truncated (%d bytes)", len(data)))
	case err != nil:
		return State{}, nil, unreadable(err.Error())
	}
	body, tail := data[:len(data)-4], data[len(data)-4:]
	if codec.Checksum(body) != binary.LittleEndian.Uint32(tail) {
		return State{}, nil, unreadable("checksum mismatch: the file is corrupt or truncated")
	}
	n := int(r.U32())
	if n > len(body)-head {
		return State{}, nil, unreadable(fmt.Sprintf("state of %d bytes overruns the file", n))
	}
	var st State
	if err := json.Unmarshal(body[head:head+n], &st); err != nil {
		return State{}, nil, unreadable("state: " + err.Error())
	}
	return st, &Rest{Reader: bytes.NewReader(body[head+n:]), version: version}, nil
}

// Rest is what follows a checkpoint's state.
type Rest struct {
	*bytes.Reader
	version uint32
}

// Load reads a whole checkpoint: state, player, trainer (with
// the training settings of cfg) and replay buffer (sized by cfg).
func Load(path string, cfg runconfig.Config) (*Loaded, error) {
	st, r, err := Open(path)
	if err != nil {
		return nil, fmt.Errorf("load checkpoint %s: %w", path, err)
	}
	return Decode(path, st, r, cfg)
}

// Decode reads the player, trainer and replay buffer of the
// checkpoint at path, whose state st [Open] read, from r.
func Decode(path string, st State, r *Rest, cfg runconfig.Config) (*Loaded, error) {
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
		return nil, fmt.Errorf("load checkpoint %s: %w", path, unreadable(fmt.Sprintf("its player is a %v network, its trainer's a %v", player.Config(), tr.Network().Config())))
	}
	rb, err := replay.Decode(r, cfg.Replay)
	if err != nil {
		return nil, fmt.Errorf("load checkpoint %s: %w", path, err)
	}
	return &Loaded{State: st, Player: player, Trainer: tr, Replay: rb}, nil
}

// ReadPlayer reads only the state and the run's player of a
// checkpoint (the whole file is still checksummed): its first network.
func ReadPlayer(path string) (State, *model.Network, error) {
	st, r, err := Open(path)
	if err != nil {
		return State{}, nil, fmt.Errorf("load checkpoint %s: %w", path, err)
	}
	net, err := model.ReadNetwork(r)
	if err != nil {
		return State{}, nil, fmt.Errorf("load checkpoint %s: %w", path, err)
	}
	return st, net, nil
}

// File is a saved file of a run: a checkpoint or a network snapshot.
type File struct {
	Iteration int
	Path      string
}

// listNumbered lists the files of dir whose names match pattern (with the
// iteration as its first group), oldest iteration first.
func listNumbered(dir string, pattern *regexp.Regexp) ([]File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []File
	for _, e := range entries {
		m := pattern.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		it, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		out = append(out, File{Iteration: it, Path: filepath.Join(dir, e.Name())})
	}
	slices.SortFunc(out, func(a, b File) int { return a.Iteration - b.Iteration })
	return out, nil
}

// List lists the checkpoints of a run directory, oldest first.
func List(runDir string) ([]File, error) {
	return listNumbered(runDir, fileName)
}

// ListNets lists the per-iteration network files of a run
// directory, oldest first.
func ListNets(runDir string) ([]File, error) {
	return listNumbered(filepath.Join(runDir, NetsDir), NetName)
}

// Latest returns the newest checkpoint of a run directory that
// reads back whole (a damaged newer one is skipped, with a warning in
// skipped), or ErrNotFound.
func Latest(runDir string) (path string, skipped []error, err error) {
	all, err := List(runDir)
	if err != nil {
		return "", nil, fmt.Errorf("list checkpoints in %s: %w", runDir, err)
	}
	for i := len(all) - 1; i >= 0; i-- {
		if _, _, err := Open(all[i].Path); err != nil {
			skipped = append(skipped, fmt.Errorf("%s: %w", all[i].Path, err))
			continue
		}
		return all[i].Path, skipped, nil
	}
	return "", skipped, fmt.Errorf("%s: %w", runDir, ErrNotFound)
}

// Prune deletes all but the newest keep checkpoints.
func Prune(runDir string, keep int) error {
	all, err := List(runDir)
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
