package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/deathstacks/deathstacks/model/onnx"
	"github.com/deathstacks/deathstacks/train"
)

// The formats of export --format.
const (
	formatPlayer = "dsnn" // a player file, which az:model= plays
	formatONNX   = "onnx" // the network alone, as a standard ONNX model
)

// exportFormatFlag adds export's --format flag to fs.
func exportFormatFlag(fs *flag.FlagSet) *string {
	return fs.String("format", formatPlayer, "the file to write: "+formatPlayer+", a player file; "+
		formatONNX+", the network as an ONNX model (opset 13) for other runtimes, without --checkpoint the built-in player's")
}

// exportNetwork is export --format for the formats other than a player
// file: the network of ckpt ("" for the built-in player's) written to
// out, with meta's entries and the command line (args) in its metadata.
func exportNetwork(format string, fs *flag.FlagSet, ckpt, out string, meta map[string]string, args []string, s stdio) error {
	if format != formatONNX {
		return usageErr("--format %q: want %s or %s", format, formatPlayer, formatONNX)
	}
	searchGiven := false
	fs.Visit(func(f *flag.Flag) { searchGiven = searchGiven || f.Name == "search" })
	if as, given := givenAs(fs, "simulations"); given || searchGiven {
		if searchGiven {
			as = "search"
		}
		return usageErr("--%s: an ONNX model holds the network only, without search settings", as)
	}
	if out == "" {
		return usageErr("--out is required")
	}
	if err := refuseOverwrite(out, "--out "+out+" exists", "--out"); err != nil {
		return err
	}
	net, err := train.LoadNetwork(ckpt)
	if err != nil {
		return checkpointErr(err, ckpt)
	}
	source := "the built-in player"
	if ckpt != "" {
		source = filepath.Base(filepath.Clean(ckpt))
	}
	how := onnx.Provenance{Command: commandLine("export", args), Source: source, Date: time.Now(), Meta: meta}
	if err := onnx.Write(out, net, how); err != nil {
		if errors.Is(err, onnx.ErrReservedMeta) {
			return usageErr("--meta: %v", err)
		}
		return err
	}
	fmt.Fprintf(s.out, "exported %s to %s (ONNX, opset %d, %v)\n", source, out, onnx.Opset, net.WithoutAux().Config())
	return nil
}
