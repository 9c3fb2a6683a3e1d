package inspect

import (
	"fmt"
	"image/png"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/advancedclimatesystems/gonnx"
	pb "github.com/advancedclimatesystems/gonnx/onnx"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/report"
	"github.com/deathstacks/deathstacks/train/runconfig"
	"github.com/deathstacks/deathstacks/train/table"
)

// RunFile describes a file of a run directory that holds no network,
// told by its name (see [runFileKind]): ok is false for a file of
// another name, which may hold a network.
func RunFile(path string) (info FileInfo, ok bool, err error) {
	describe, ok := runFiles[runFileKind(path)]
	if !ok {
		return FileInfo{}, false, nil
	}
	info, err = describe(path)
	return info, true, err
}

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

// describePlot describes a PNG image: its size and, for a chart the
// commands draw, what it shows.
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
