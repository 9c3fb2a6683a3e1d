package train

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/builtin"
	"github.com/deathstacks/deathstacks/train/internal/table"
)

// The kinds of file [Inspect] tells apart.
const (
	KindCheckpoint = "checkpoint"      // a run's checkpoint (ckpt-N.dsck)
	KindPlayer     = "exported player" // written by [Export]
	KindNetwork    = "network"         // a bare network file, such as nets/net-N.dsnn
)

// FileInfo describes a checkpoint, network or player file; every field
// comes from a file whose checksum matched.
type FileInfo struct {
	Path string
	Kind string // KindCheckpoint, KindPlayer or KindNetwork
	// The network: architecture, learnable values, training steps, the
	// observation encoding it reads, and its metadata.
	Architecture model.Config
	Parameters   int
	Steps        int64
	Encoding     int
	Meta         map[string]string
	// Search is the search settings the file plays with, as YAML: a
	// player's own; a checkpoint's or snapshot's run's turned to a
	// player's (strongSearch); empty for a bare network, which plays with
	// the library defaults.
	Search string
	// For a checkpoint: its state, its run's config name and the
	// positions in its replay buffer.
	State      *CheckpointState
	ConfigName string
	ReplaySize int
	// Skipped names the damaged checkpoints of a run directory passed over
	// for an older one, newest first.
	Skipped []string
}

// Inspect reads a checkpoint, network or exported player file whole,
// checking its checksum, and describes it; a run directory is its latest
// complete checkpoint, as for every command that reads a network; path ""
// describes the built-in player.
func Inspect(path string) (FileInfo, error) {
	if path == "" {
		net, err := model.ReadNetwork(builtin.Open())
		if err != nil {
			return FileInfo{}, fmt.Errorf("inspect %s: %w", builtin.Name, err)
		}
		return describePlayer(builtin.Name, net), nil
	}
	file, passed, err := modelFile(path)
	if err != nil {
		return FileInfo{}, fmt.Errorf("inspect: %w", err)
	}
	info, err := inspectFile(file)
	for _, p := range passed {
		info.Skipped = append(info.Skipped, p.Error())
	}
	return info, err
}

// inspectFile describes one checkpoint, network or exported player file.
func inspectFile(path string) (FileInfo, error) {
	head := make([]byte, len(checkpointMagic))
	f, err := os.Open(path)
	if err != nil {
		return FileInfo{}, err
	}
	_, readErr := f.Read(head)
	f.Close()
	info := FileInfo{Path: path, Encoding: env.EncodingVersion}
	if readErr == nil && string(head) == checkpointMagic {
		st, _, err := checkpointBody(path)
		if err != nil {
			return FileInfo{}, fmt.Errorf("inspect %s: %w", path, err)
		}
		cfg, err := parseSaved([]byte(st.Config))
		if err != nil {
			return FileInfo{}, fmt.Errorf("inspect %s: its config: %w", path, err)
		}
		ck, err := loadCheckpoint(path, cfg)
		if err != nil {
			return FileInfo{}, err
		}
		search, err := yaml.Marshal(strongSearch(cfg.Search))
		if err != nil {
			return FileInfo{}, err
		}
		info.Kind, info.State, info.ConfigName, info.ReplaySize = KindCheckpoint, &ck.State, cfg.Name, ck.Replay.Len()
		info.Search = string(search)
		info.describeNetwork(ck.Trainer.Network())
		return info, nil
	}
	t, err := loadTrained(path)
	if err != nil {
		return FileInfo{}, fmt.Errorf("inspect %s: %w", path, err)
	}
	info = describePlayer(path, t.net)
	if t.runDir != "" {
		// A snapshot plays with its run's settings turned to a player's,
		// as loadTrained found them, whatever it carries.
		text, err := yaml.Marshal(t.search)
		if err != nil {
			return FileInfo{}, err
		}
		info.Search = string(text)
	}
	return info, nil
}

// describePlayer describes a network file or exported player read from
// path.
func describePlayer(path string, net *model.Network) FileInfo {
	info := FileInfo{Path: path, Encoding: env.EncodingVersion, Kind: KindNetwork}
	if net.Meta[metaKind] == metaKindPlayer {
		info.Kind = KindPlayer
	}
	info.Search = net.Meta[metaSearch]
	info.describeNetwork(net)
	return info
}

func (info *FileInfo) describeNetwork(net *model.Network) {
	info.Architecture, info.Parameters, info.Steps, info.Meta = net.Config(), net.NumParams(), net.Steps(), net.Meta
}

// WriteText writes the description as "key: value" lines: the kind, the
// network, the metadata (the search settings on one line) and, for a
// checkpoint, its run's figures.
func (info FileInfo) WriteText(w io.Writer) {
	line := func(key, format string, a ...any) { fmt.Fprintf(w, "%s: %s\n", key, fmt.Sprintf(format, a...)) }
	line("file", "%s", info.Path)
	line("kind", "%s (checksum OK)", info.Kind)
	line("network", "%v, %d parameters, %s", info.Architecture, info.Parameters, table.Count(int(info.Steps), "training step", "training steps"))
	line("encoding version", "%d", info.Encoding)
	if st := info.State; st != nil {
		line("config", "%s", info.ConfigName)
		line("iteration", "%d", st.Iteration)
		line("replay buffer", "%d positions", info.ReplaySize)
		elapsed := time.Duration(st.ElapsedSec * float64(time.Second)).Round(time.Second)
		line("run so far", "%s, %s, %s, %v", table.Count(int(st.Games), "game", "games"), table.Count(int(st.Positions), "position", "positions"),
			table.Count(int(st.TrainSteps), "training step", "training steps"), elapsed)
		if st.BestIteration > 0 {
			line("best iteration", "%d", st.BestIteration)
		}
		line("created", "%s", st.Created.Format("2006-01-02 15:04:05 MST"))
	}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range info.Meta {
			if k != metaSearch && k != metaKind && !yield(k) {
				return
			}
		}
	}) {
		line(k, "%s", info.Meta[k])
	}
	switch {
	case info.Search != "":
		line("search", "%s", oneLine(info.Search))
	default:
		line("search", "none stored: the library defaults")
	}
}

// oneLine writes flat YAML ("a: 1\nb: 2\n") as "a=1, b=2".
func oneLine(text string) string {
	var parts []string
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		k, v, _ := strings.Cut(l, ":")
		parts = append(parts, strings.TrimSpace(k)+"="+strings.TrimSpace(v))
	}
	return strings.Join(parts, ", ")
}
