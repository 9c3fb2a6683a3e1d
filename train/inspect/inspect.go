// Package inspect describes the files of a training run for a reader: a
// [FileInfo] of a checkpoint, network or exported player (which package
// train reads and fills in), and of the files of a run directory that hold
// no network ([RunFile]: its metrics, its config, its charts, an ONNX
// export), written out as "key: value" lines ([FileInfo.WriteText]).
package inspect

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/checkpoint"
	"github.com/deathstacks/deathstacks/train/table"
)

// The kinds of file train.Inspect tells apart.
const (
	KindCheckpoint = "checkpoint"      // a run's checkpoint (ckpt-N.dsck)
	KindPlayer     = "exported player" // written by train.Export
	KindNetwork    = "network"         // a bare network file, such as nets/net-N.dsnn
	KindMetrics    = "metrics"         // a run's metrics.jsonl
	KindConfig     = "run config"      // a run's config.yaml
	KindPlot       = "plot"            // a PNG chart of a run, an eval or a ladder
	KindONNX       = "onnx model"      // a network exported by export --format onnx
)

// FileInfo describes a checkpoint, network or player file, every field
// from a file whose checksum matched; or another file of a run
// directory (KindMetrics, KindConfig, KindPlot), in Facts alone.
type FileInfo struct {
	Path string
	Kind string // one of the Kind constants
	// Facts describe a file that holds no network, one "key: value"
	// line each.
	Facts []Fact
	// The network: architecture, learnable values, training steps, the
	// observation encoding it reads, and its metadata.
	Architecture model.Config
	Parameters   int
	Steps        int64
	Encoding     int
	Meta         map[string]string
	// Zeroed lists the network's tensors with zeroed units.
	Zeroed []ZeroedUnits
	// Search is the search settings the file plays with, as YAML: a
	// player's own; a checkpoint's or snapshot's run's turned to a
	// player's (strongSearch); empty for a bare network, which plays with
	// the library defaults.
	Search string
	// For a checkpoint: its state, its run's config name and the
	// positions in its replay buffer.
	State      *checkpoint.State
	ConfigName string
	ReplaySize int
	// Skipped names the damaged checkpoints of a run directory passed over
	// for an older one, newest first.
	Skipped []string
}

// The keys of a network's metadata that [FileInfo.WriteText] shows on
// lines of their own: the file's kind and its search settings, as package
// train writes them into an exported player or a network snapshot.
const (
	metaKind   = "kind"
	metaSearch = "search"
)

// DescribeNetwork fills in the description of the network net.
func (info *FileInfo) DescribeNetwork(net *model.Network) {
	info.Architecture, info.Parameters, info.Steps, info.Meta = net.Config(), net.NumParams(), net.Steps(), net.Meta
	info.Zeroed = findZeroedUnits(net.Weights())
}

// WriteText writes the description as "key: value" lines: the kind, the
// network, the metadata (the search settings on one line) and, for a
// checkpoint, its run's figures.
func (info FileInfo) WriteText(w io.Writer) {
	line := func(key, format string, a ...any) { fmt.Fprintf(w, "%s: %s\n", key, fmt.Sprintf(format, a...)) }
	line("file", "%s", info.Path)
	if info.Facts != nil {
		line("kind", "%s", info.Kind)
		for _, f := range info.Facts {
			line(f.Key, "%s", f.Value)
		}
		return
	}
	line("kind", "%s (checksum OK)", info.Kind)
	line("network", "%v, %d parameters, %s", info.Architecture, info.Parameters, table.Count(int(info.Steps), "training step", "training steps"))
	line("encoding version", "%d", info.Encoding)
	if info.Zeroed == nil {
		line("zeroed units", "none")
	} else {
		zeroed := make([]string, len(info.Zeroed))
		for i, z := range info.Zeroed {
			zeroed[i] = z.String()
		}
		line("zeroed units", "%s (every weight below a millionth of its tensor's largest)", strings.Join(zeroed, "; "))
	}
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

// Fact is one line of a [FileInfo] of a file without a network.
type Fact struct{ Key, Value string }
