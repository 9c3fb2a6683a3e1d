package main

import (
	"fmt"
	"runtime/debug"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
)

func runVersion(args []string, s stdio) error {
	fs := newFlags("version", "version\n\nPrints the module version, the Go version, the source revision when the\nbinary was built from a repository, and the matrix library in use.", s)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	version, goVersion, revision := "unknown", "unknown", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		version, goVersion = bi.Main.Version, bi.GoVersion
		modified := false
		for _, kv := range bi.Settings {
			switch kv.Key {
			case "vcs.revision":
				revision = kv.Value
			case "vcs.modified":
				modified = kv.Value == "true"
			}
		}
		if revision != "" && modified {
			revision += " (with uncommitted changes)"
		}
	}
	fmt.Fprintf(s.out, "deathstacks %s\ngo: %s\n", version, goVersion)
	if revision != "" {
		fmt.Fprintf(s.out, "revision: %s\n", revision)
	}
	fmt.Fprintf(s.out, "blas: %s\n", model.BLAS)
	return nil
}

func runInspect(args []string, s stdio) error {
	fs := newFlags("inspect", "inspect [FILE]\n\nDescribes a checkpoint (ckpt-N.dsck), a network file (nets/net-N.dsnn) or an\nexported player, read whole with its checksum: kind, architecture,\nparameters, training steps, encoding version, metadata (iteration, run,\nrating, how it was made...), search settings; for a checkpoint also its\niteration, replay buffer and config name. One \"key: value\" a line.\nWithout FILE, the built-in player (the az player without a model).", s)
	files := 1
	if len(args) == 0 {
		files = 0
	}
	if err := parseFlagsArgs(fs, args, files); err != nil {
		return err
	}
	info, err := train.Inspect(fs.Arg(0))
	if err != nil {
		return err
	}
	info.WriteText(s.out)
	return nil
}
