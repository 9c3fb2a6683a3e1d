package train

import (
	"errors"
	"fmt"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/builtin"
	"github.com/deathstacks/deathstacks/train/checkpoint"
	"github.com/deathstacks/deathstacks/train/inspect"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// Inspect reads a checkpoint, network or exported player file whole,
// checking its checksum, and describes it; a run directory is its latest
// complete checkpoint, as for every command that reads a network; path ""
// describes the built-in player, "anchor" the anchor.
func Inspect(path string) (inspect.FileInfo, error) {
	if file, title, ok := builtin.Lookup(path); ok {
		net, err := model.ReadNetwork(file)
		if err != nil {
			return inspect.FileInfo{}, fmt.Errorf("inspect %s: %w", title, err)
		}
		return describePlayer(title, net), nil
	}
	if info, ok, err := inspect.RunFile(path); ok {
		if err != nil {
			return inspect.FileInfo{}, fmt.Errorf("inspect %s: %w", path, err)
		}
		return info, nil
	}
	file, passed, err := modelFile(path)
	if err != nil {
		return inspect.FileInfo{}, fmt.Errorf("inspect: %w", err)
	}
	info, err := inspectFile(file)
	for _, p := range passed {
		info.Skipped = append(info.Skipped, p.Error())
	}
	return info, err
}

// inspectFile describes one checkpoint, network or exported player file.
func inspectFile(path string) (inspect.FileInfo, error) {
	head := make([]byte, len(checkpoint.Magic))
	f, err := os.Open(path)
	if err != nil {
		return inspect.FileInfo{}, err
	}
	_, readErr := f.Read(head)
	f.Close()
	info := inspect.FileInfo{Path: path, Encoding: env.EncodingVersion}
	if readErr == nil && string(head) == checkpoint.Magic {
		st, _, err := checkpoint.Open(path)
		if err != nil {
			return inspect.FileInfo{}, fmt.Errorf("inspect %s: %w", path, err)
		}
		cfg, err := runconfig.ParseSaved([]byte(st.Config))
		if err != nil {
			return inspect.FileInfo{}, fmt.Errorf("inspect %s: its config: %w", path, err)
		}
		ck, err := checkpoint.Load(path, cfg)
		if err != nil {
			return inspect.FileInfo{}, err
		}
		search, err := yaml.Marshal(strongSearch(cfg.Search))
		if err != nil {
			return inspect.FileInfo{}, err
		}
		info.Kind, info.State, info.ConfigName, info.ReplaySize = inspect.KindCheckpoint, &ck.State, cfg.Name, ck.Replay.Len()
		info.Search = string(search)
		info.DescribeNetwork(ck.Player)
		return info, nil
	}
	t, err := loadTrained(path)
	var named *ModelError
	switch {
	case errors.Is(err, model.ErrNotNetwork):
		return inspect.FileInfo{}, fmt.Errorf("inspect %s: %w, nor a run's %s, %s or PNG chart", path, model.ErrNotNetwork, metrics.File, runconfig.File)
	case errors.As(err, &named):
		return inspect.FileInfo{}, fmt.Errorf("inspect %s: %w", path, named.Err) // the path once
	case err != nil:
		return inspect.FileInfo{}, fmt.Errorf("inspect %s: %w", path, err)
	}
	info = describePlayer(path, t.net)
	if t.runDir != "" {
		// A snapshot plays with its run's settings turned to a player's,
		// as loadTrained found them, whatever it carries.
		text, err := yaml.Marshal(t.search)
		if err != nil {
			return inspect.FileInfo{}, err
		}
		info.Search = string(text)
	}
	return info, nil
}

// describePlayer describes a network file or exported player read from
// path.
func describePlayer(path string, net *model.Network) inspect.FileInfo {
	info := inspect.FileInfo{Path: path, Encoding: env.EncodingVersion, Kind: inspect.KindNetwork}
	if net.Meta[metaKind] == metaKindPlayer {
		info.Kind = inspect.KindPlayer
	}
	info.Search = net.Meta[metaSearch]
	info.DescribeNetwork(net)
	return info
}
