package train

import (
	"errors"
	"fmt"
	"image/png"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/advancedclimatesystems/gonnx"
	pb "github.com/advancedclimatesystems/gonnx/onnx"
	"gopkg.in/yaml.v3"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/builtin"
	"github.com/deathstacks/deathstacks/train/checkpoint"
	"github.com/deathstacks/deathstacks/train/internal/table"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/report"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// The kinds of file [Inspect] tells apart.
const (
	KindCheckpoint = "checkpoint"      // a run's checkpoint (ckpt-N.dsck)
	KindPlayer     = "exported player" // written by [Export]
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

// Inspect reads a checkpoint, network or exported player file whole,
// checking its checksum, and describes it; a run directory is its latest
// complete checkpoint, as for every command that reads a network; path ""
// describes the built-in player, "anchor" the anchor.
func Inspect(path string) (FileInfo, error) {
	if file, title, ok := builtin.Lookup(path); ok {
		net, err := model.ReadNetwork(file)
		if err != nil {
			return FileInfo{}, fmt.Errorf("inspect %s: %w", title, err)
		}
		return describePlayer(title, net), nil
	}
	if describe, ok := runFiles[runFileKind(path)]; ok {
		info, err := describe(path)
		if err != nil {
			return FileInfo{}, fmt.Errorf("inspect %s: %w", path, err)
		}
		return info, nil
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
	head := make([]byte, len(checkpoint.Magic))
	f, err := os.Open(path)
	if err != nil {
		return FileInfo{}, err
	}
	_, readErr := f.Read(head)
	f.Close()
	info := FileInfo{Path: path, Encoding: env.EncodingVersion}
	if readErr == nil && string(head) == checkpoint.Magic {
		st, _, err := checkpoint.Open(path)
		if err != nil {
			return FileInfo{}, fmt.Errorf("inspect %s: %w", path, err)
		}
		cfg, err := runconfig.ParseSaved([]byte(st.Config))
		if err != nil {
			return FileInfo{}, fmt.Errorf("inspect %s: its config: %w", path, err)
		}
		ck, err := checkpoint.Load(path, cfg)
		if err != nil {
			return FileInfo{}, err
		}
		search, err := yaml.Marshal(strongSearch(cfg.Search))
		if err != nil {
			return FileInfo{}, err
		}
		info.Kind, info.State, info.ConfigName, info.ReplaySize = KindCheckpoint, &ck.State, cfg.Name, ck.Replay.Len()
		info.Search = string(search)
		info.describeNetwork(ck.Player)
		return info, nil
	}
	t, err := loadTrained(path)
	var named *ModelError
	switch {
	case errors.Is(err, model.ErrNotNetwork):
		return FileInfo{}, fmt.Errorf("inspect %s: %w, nor a run's %s, %s or PNG chart", path, model.ErrNotNetwork, metrics.File, runconfig.File)
	case errors.As(err, &named):
		return FileInfo{}, fmt.Errorf("inspect %s: %w", path, named.Err) // the path once
	case err != nil:
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

// runFiles describes the files of a run directory that hold no network,
// by [runFileKind].
var runFiles = map[string]func(path string) (FileInfo, error){
	KindMetrics: describeMetrics,
	KindConfig:  describeConfig,
	KindPlot:    describePlot,
	KindONNX:    describeONNX,
}

// runFileKind tells by its name which file of a run directory without a
// network path is: KindMetrics, KindConfig, KindPlot, or "".
func runFileKind(path string) string {
	switch base := filepath.Base(path); {
	case base == metrics.File:
		return KindMetrics
	case base == runconfig.File:
		return KindConfig
	case strings.EqualFold(filepath.Ext(base), ".png"):
		return KindPlot
	case strings.EqualFold(filepath.Ext(base), ".onnx"):
		return KindONNX
	}
	return ""
}

// describeMetrics describes a run's metrics.jsonl: its iterations, and the
// key figures of the last one.
func describeMetrics(path string) (FileInfo, error) {
	ms, err := metrics.Read(path)
	if err != nil {
		return FileInfo{}, err
	}
	info := FileInfo{Path: path, Kind: KindMetrics, Facts: []Fact{}}
	add := func(key, format string, a ...any) {
		info.Facts = append(info.Facts, Fact{key, fmt.Sprintf(format, a...)})
	}
	if len(ms) == 0 {
		add("iterations", "none yet")
		return info, nil
	}
	last := ms[len(ms)-1]
	add("iterations", "%d (%d to %d)", len(ms), ms[0].Iteration, last.Iteration)
	add("elapsed", "%v", time.Duration(last.ElapsedSec*float64(time.Second)).Round(time.Second))
	add("last iteration", "%d: %s, %.0f plies on average, %.0f%% decided", last.Iteration,
		table.Count(last.SelfPlayGames+last.RemoteGames, "game", "games"), last.MeanGameLength, 100*(last.RedWinShare+last.BlueWinShare))
	if last.TrainSteps > 0 {
		add("last loss", "policy %.3f, value %.3f, total %.3f", last.PolicyLoss, last.ValueLoss, last.TotalLoss)
	}
	add("replay buffer", "%d positions", last.BufferSize)
	// The latest evaluation, which need not be the last iteration's.
	for i := len(ms) - 1; i >= 0; i-- {
		if len(ms[i].Eval) == 0 {
			continue
		}
		var parts []string
		for _, opp := range slices.Sorted(maps.Keys(ms[i].Eval)) {
			r := ms[i].Eval[opp]
			parts = append(parts, fmt.Sprintf("vs %s %.0f%% (%+.0f Elo)", opp, 100*r.Score, r.Elo))
		}
		add("last evaluation", "iteration %d: %s", ms[i].Iteration, strings.Join(parts, ", "))
		break
	}
	rated, err := metrics.Ratings(ms)
	if err != nil {
		return FileInfo{}, err
	}
	if len(rated) > 0 {
		r := rated[len(rated)-1]
		add("rating", "iteration %d: %+.0f Elo ±%.0f, the anchor at 0 (one fit of the rating games of %s)",
			r.Iteration, r.Elo, (r.High-r.Low)/2, table.Count(len(rated), "evaluation", "evaluations"))
	}
	return info, nil
}

// describeConfig describes a run's config.yaml: its name and the settings
// that say most about the run.
func describeConfig(path string) (FileInfo, error) {
	cfg, err := runconfig.LoadSaved(path)
	if err != nil {
		return FileInfo{}, err
	}
	target := "none (its time limit)"
	if cfg.Iterations > 0 {
		target = table.Count(cfg.Iterations, "iteration", "iterations")
	}
	limit := "none"
	if cfg.TimeLimit > 0 {
		limit = cfg.TimeLimit.String()
	}
	evaluation := "none"
	if cfg.Eval.Every > 0 {
		opponents := slices.Clone(cfg.Eval.Baselines)
		if cfg.Eval.Anchor != "" {
			opponents = append(opponents, "the anchor "+cfg.Eval.Anchor)
		}
		if n := cfg.Eval.Snapshots; n > 0 {
			opponents = append(opponents, table.Count(n, "earlier network", "earlier networks"))
		}
		evaluation = fmt.Sprintf("every %s, %s against each of %s", table.Count(cfg.Eval.Every, "iteration", "iterations"),
			table.Count(cfg.Eval.Games, "game", "games"), strings.Join(opponents, ", "))
	}
	return FileInfo{Path: path, Kind: KindConfig, Facts: []Fact{
		{"config", cfg.Name},
		{"target", target},
		{"time limit", limit},
		{"network", cfg.Model.String()},
		{"self-play", fmt.Sprintf("%s an iteration, %d simulations a move", table.Count(cfg.SelfPlay.GamesPerIteration, "game", "games"), cfg.Search.Simulations)},
		{"training", fmt.Sprintf("%s an iteration, batch %d", table.Count(cfg.Optim.StepsPerIteration, "step", "steps"), cfg.Optim.BatchSize)},
		{"evaluation", evaluation},
	}}, nil
}

// plots says what each chart the commands draw shows, by file name.
var plots = map[string]string{
	metrics.LossChart:     "training: each loss, the policy's entropy, the learning rate and the replay buffer by iteration",
	metrics.SelfPlayChart: "self-play: game length, how games ended, time and speeds by iteration",
	metrics.EvalChart:     "the run's evaluation: Elo on the anchor's scale against training time, score and Elo against each baseline by iteration",
	report.EloChart:       "an eval: each player's Elo with its 95% interval",
	report.LadderChart:    "a ladder: the snapshots' Elo against training time",
}

// describePlot describes a PNG image: its size and, for a chart the
// commands draw, what it shows.
// describeONNX describes an ONNX model: its producer, opset, inputs and
// outputs, and the metadata export --format onnx writes (architecture,
// observation, source, command...), each a fact of one line.
func describeONNX(path string) (FileInfo, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return FileInfo{}, err
	}
	m, err := gonnx.ModelProtoFromBytes(data)
	if err != nil || m.GetGraph() == nil {
		return FileInfo{}, fmt.Errorf("%w, nor an ONNX model", model.ErrNotNetwork)
	}
	producer := strings.TrimSpace(m.GetProducerName() + " " + m.GetProducerVersion())
	opsets := make([]string, 0, len(m.GetOpsetImport()))
	for _, o := range m.GetOpsetImport() {
		opsets = append(opsets, strconv.FormatInt(o.GetVersion(), 10))
	}
	values := func(vs []*pb.ValueInfoProto) string {
		names := make([]string, len(vs))
		for i, v := range vs {
			names[i] = v.GetName()
		}
		return strings.Join(names, ", ")
	}
	info := FileInfo{Path: path, Kind: KindONNX, Facts: []Fact{
		{"producer", producer},
		{"opset", strings.Join(opsets, ", ")},
		{"graph inputs", values(m.GetGraph().GetInput())},
		{"graph outputs", values(m.GetGraph().GetOutput())},
	}}
	for _, p := range m.GetMetadataProps() {
		v := p.GetValue()
		if strings.Contains(v, "\n") { // flat YAML, such as network.search
			v = oneLine(v)
		}
		info.Facts = append(info.Facts, Fact{p.GetKey(), v})
	}
	return info, nil
}

func describePlot(path string) (FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return FileInfo{}, err
	}
	defer f.Close()
	img, err := png.DecodeConfig(f)
	if err != nil {
		return FileInfo{}, fmt.Errorf("%w, nor a PNG image", model.ErrNotNetwork)
	}
	shows, ok := plots[filepath.Base(path)]
	if !ok {
		shows = "not a chart deathstacks draws"
	}
	return FileInfo{Path: path, Kind: KindPlot, Facts: []Fact{
		{"image", fmt.Sprintf("PNG, %dx%d pixels", img.Width, img.Height)},
		{"shows", shows},
	}}, nil
}
