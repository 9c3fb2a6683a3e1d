package onnx_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/advancedclimatesystems/gonnx"
	pb "github.com/advancedclimatesystems/gonnx/onnx"
	"github.com/advancedclimatesystems/gonnx/ops"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/model/onnx"
	"github.com/deathstacks/deathstacks/train"
	"google.golang.org/protobuf/proto"
	"gorgonia.org/tensor"
)

// tolerance is the largest difference allowed between an independent
// runtime's outputs and Go's (see TestParityWithGo).
const tolerance = 1e-5

var provenance = onnx.Provenance{
	Command: "deathstacks export --format onnx --out net.onnx",
	Source:  "built-in player",
	Date:    time.Date(2026, 12, 4, 6, 0, 0, 0, time.UTC),
}

// position is one position of a game: its observation and legal actions.
type position struct {
	obs   []float32
	legal []env.Action
}

// gamePositions plays seeded games between a greedy and a random player,
// each from a random opening, and returns the first n positions met.
func gamePositions(t testing.TB, n int) []position {
	rules := env.DefaultRules()
	var out []position
	for seed := uint64(1); len(out) < n; seed++ {
		g := env.NewGame(rules)
		env.PlayOpening(g, 2+int(seed%7), rand.New(rand.NewPCG(seed, 1)))
		sides := []mcts.Player{players.NewGreedyPlayer(seed), players.NewRandomPlayer(seed)}
		for i := 0; !g.Status().Over() && len(out) < n; i++ {
			p := g.Position()
			obs := make([]float32, env.ObservationSize)
			env.EncodeObservation(obs, &p, rules, g.Repetitions())
			out = append(out, position{obs: obs, legal: p.LegalActions(nil, rules.TooTall)})
			d, err := sides[(i+int(seed))%2].Choose(g)
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Play(d.Move); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// withUint8Cast returns gonnx's operators with its Cast accepting a uint8
// input: gonnx 1.1.0's conversion handles uint8 but its Cast's type
// constraints leave it out. The conversion itself stays gonnx's.
func withUint8Cast(get gonnx.OpGetter) gonnx.OpGetter {
	return func(name string) (ops.Operator, error) {
		op, err := get(name)
		if name == "Cast" && err == nil {
			op = uint8Cast{op}
		}
		return op, err
	}
}

type uint8Cast struct{ ops.Operator }

func (c uint8Cast) GetInputTypeConstraints() [][]tensor.Dtype {
	return [][]tensor.Dtype{append(c.Operator.GetInputTypeConstraints()[0], tensor.Uint8)}
}

func (c uint8Cast) ValidateInputs(inputs []tensor.Tensor) ([]tensor.Tensor, error) {
	return ops.ValidateInputs(c, inputs)
}

// chunk is the number of positions of one gonnx run.
const chunk = 25

// runGonnx runs the model on positions, each with the mask of its legal
// actions (or of every action, allLegal), in gonnx's runtime: chunks of
// positions on a goroutine per core, each chunk on a model of its own
// (gonnx 1.1.0's Conv reshapes its bias parameter in place, so that a
// model runs once). The model computes in float32, or in float64 if it is
// widened; either way its outputs come back as float64.
func runGonnx(t *testing.T, m *pb.ModelProto, positions []position, allLegal bool) (logits, values []float64) {
	t.Helper()
	n := len(positions)
	logits, values = make([]float64, n*env.NumActions), make([]float64, n)
	starts := make(chan int)
	errs := make(chan error, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for range cap(errs) {
		wg.Go(func() {
			for start := range starts {
				end := min(start+chunk, n)
				if err := runChunk(m, positions[start:end], allLegal, logits[start*env.NumActions:end*env.NumActions], values[start:end]); err != nil {
					errs <- fmt.Errorf("positions %d to %d: %w", start, end-1, err)
					return
				}
			}
		})
	}
	go func() {
		defer close(starts)
		for start := 0; start < n; start += chunk {
			select {
			case starts <- start:
			case err := <-errs:
				errs <- err
				return
			}
		}
	}()
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	return logits, values
}

// runChunk runs a model of m on positions, writing their logits and
// values.
func runChunk(m *pb.ModelProto, positions []position, allLegal bool, logits, values []float64) error {
	rt, err := gonnx.NewModel(m)
	if err != nil {
		return err
	}
	rt.GetOperator = withUint8Cast(rt.GetOperator)
	n := len(positions)
	obs, mask := inputs(positions, allLegal)
	var backing any = obs
	if isWidened(m) {
		backing = widen(obs)
	}
	out, err := rt.Run(gonnx.Tensors{
		onnx.InputObservation: tensor.New(tensor.WithShape(n, env.NumPlanes, 6, 6), tensor.WithBacking(backing)),
		onnx.InputActionMask:  tensor.New(tensor.WithShape(n, env.NumActions), tensor.WithBacking(mask)),
	})
	if err != nil {
		return err
	}
	for name, dst := range map[string][]float64{onnx.OutputLogits: logits, onnx.OutputValue: values} {
		want := []int{n, env.NumActions}
		if name == onnx.OutputValue {
			want = want[:1]
		}
		if got := out[name].Shape(); !slices.Equal(got, want) {
			return fmt.Errorf("%s has shape %v, want %v", name, got, want)
		}
		switch data := out[name].Data().(type) {
		case []float32:
			copy(dst, widen(data))
		case []float64:
			copy(dst, data)
		default:
			return fmt.Errorf("%s holds %T", name, data)
		}
	}
	return nil
}

// inputs returns the model's inputs for positions: their observations,
// and the masks of their legal actions (of every action, allLegal).
func inputs(positions []position, allLegal bool) (obs []float32, mask []uint8) {
	obs = make([]float32, 0, len(positions)*env.ObservationSize)
	mask = make([]uint8, len(positions)*env.NumActions)
	for i, p := range positions {
		obs = append(obs, p.obs...)
		row := mask[i*env.NumActions : (i+1)*env.NumActions]
		if allLegal {
			for a := range row {
				row[a] = 1
			}
		}
		for _, a := range p.legal {
			row[a] = 1
		}
	}
	return obs, mask
}

// widened returns a copy of m that computes in float64: its float32
// initializers widened (which loses nothing), its casts to float32 casts
// to float64, its observation input and its outputs float64. gonnx runs
// it as the exported network's function in exact arithmetic but for
// float64's rounding, 2^29 times finer than float32's.
func widened(m *pb.ModelProto) *pb.ModelProto {
	m = proto.Clone(m).(*pb.ModelProto)
	g := m.GetGraph()
	for _, init := range g.GetInitializer() {
		if init.GetDataType() == int32(pb.TensorProto_FLOAT) {
			init.DataType, init.DoubleData, init.FloatData = int32(pb.TensorProto_DOUBLE), widen(init.GetFloatData()), nil
		}
	}
	for _, node := range g.GetNode() {
		for _, a := range node.GetAttribute() {
			if node.GetOpType() == "Cast" && a.GetName() == "to" && a.GetI() == int64(pb.TensorProto_FLOAT) {
				a.I = int64(pb.TensorProto_DOUBLE)
			}
		}
	}
	for _, v := range append([]*pb.ValueInfoProto{g.GetInput()[0]}, g.GetOutput()...) {
		v.GetType().GetTensorType().ElemType = int32(pb.TensorProto_DOUBLE)
	}
	return m
}

// isWidened says whether m's observation input is float64, as widened
// makes it.
func isWidened(m *pb.ModelProto) bool {
	return m.GetGraph().GetInput()[0].GetType().GetTensorType().GetElemType() == int32(pb.TensorProto_DOUBLE)
}

func widen(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// logSoftmax returns the log-probabilities of the actions of legal under
// a softmax over them of the row's logits, in float64.
func logSoftmax(row []float64, legal []env.Action) []float64 {
	top := math.Inf(-1)
	for _, a := range legal {
		top = max(top, row[a])
	}
	sum := 0.0
	for _, a := range legal {
		sum += math.Exp(row[a] - top)
	}
	out := make([]float64, len(legal))
	for i, a := range legal {
		out[i] = row[a] - top - math.Log(sum)
	}
	return out
}

// TestParityWithGo runs the built-in player's network, exported, in
// gonnx's runtime on 1,000 positions of games (20 under the race
// detector, 50 with -short), twice: in float32 as exported, and widened to
// float64, where gonnx computes the network's function exactly but for
// float64's rounding. Go's Network.Evaluate gives the values and the
// priors; a model the values and, by a log-softmax of its logits over the
// legal actions, the log-probabilities to compare with the log of Go's
// priors. With DEATHSTACKS_ORT set (see onnxruntimeOutputs) onnxruntime
// runs the exported model too.
//
// Against the exact run, Go's values and log-probabilities are within
// tolerance: on these positions what Go computes is the exported
// network's function to 1e-5 (9.3e-6), which is float32's own rounding on
// this network rather than a margin (other positions reach 1.03e-5). A
// float32 runtime's log-probabilities are held to tolerance times
// max(1, |log-probability|) only, absolute for the likely actions
// (probability 1/e and more) and relative for the unlikely ones: this
// network's logits reach 20 and its activations 28, and each float32
// runtime, summing in its own order, is on its own about 1e-5 from exact
// arithmetic in the unlikely actions' log-probabilities (gonnx 1.7e-5,
// onnxruntime 1.3e-5, Go 9.3e-6), so that two of them differ by more. In
// every run each masked action's logit is exactly MaskedLogit.
func TestParityWithGo(t *testing.T) {
	n := 1000
	switch {
	case raceEnabled: // which slows gonnx twentyfold
		n = 20
	case testing.Short():
		n = 50
	case os.Getenv("DEATHSTACKS_NOASM") == "1":
		// CI's run of the portable kernels: their arithmetic against the
		// same references, on a quarter of the positions, since the
		// references' runtimes cost the most and are the same.
		n = 250
	}
	net, err := train.LoadNetwork("")
	if err != nil {
		t.Fatal(err)
	}
	m, err := onnx.Model(net, provenance)
	if err != nil {
		t.Fatal(err)
	}
	positions := gamePositions(t, n)
	obs, _ := inputs(positions, false)
	legal := make([][]env.Action, n)
	priors := make([][]float32, n)
	for i, p := range positions {
		legal[i], priors[i] = p.legal, make([]float32, len(p.legal))
	}
	values := make([]float32, n)
	if err := net.Evaluate(obs, legal, priors, values); err != nil {
		t.Fatal(err)
	}
	goLogProbs := make([][]float64, n)
	goValues := make([][]float64, n)
	for i := range positions {
		goValues[i] = []float64{float64(values[i])}
		for _, p := range priors[i] {
			goLogProbs[i] = append(goLogProbs[i], math.Log(float64(p)))
		}
	}

	goOutputs := outputs{goLogProbs, goValues}
	exact := outputsOf(t, widened(m), positions)
	float32s := outputsOf(t, m, positions)
	type comparison struct {
		name     string
		of, to   outputs
		relative bool // the log-probabilities' bound is relative to max(1, |lp|)
	}
	comparisons := []comparison{
		{"Go against exact arithmetic", goOutputs, exact, false},
		{"gonnx float32 against Go", float32s, goOutputs, true},
		{"gonnx float32 against exact arithmetic", float32s, exact, true},
	}
	ort, ok := onnxruntimeOutputs(t, m, positions)
	if ok {
		comparisons = append(comparisons,
			comparison{"onnxruntime against Go", ort, goOutputs, true},
			comparison{"onnxruntime against exact arithmetic", ort, exact, true})
	}
	for _, c := range comparisons {
		d := c.of.distance(c.to)
		t.Logf("%s: %d positions, max |log-probability difference| %.2g (%.2g relative to max(1, |log-probability|)), max |value difference| %.2g",
			c.name, n, d.logProb, d.scaled, d.value)
		bound := d.logProb
		if c.relative {
			bound = d.scaled
		}
		if bound > tolerance || d.value > tolerance {
			t.Errorf("%s: log-probabilities differ by %.2g (relative: %v), values by %.2g, want at most %g", c.name, bound, c.relative, d.value, tolerance)
		}
	}
}

// outputs are a model's outputs for positions: the log-probabilities of
// each position's legal actions, in the order of its legal actions, and
// its value (one number, in a slice).
type outputs struct{ logProbs, values [][]float64 }

// outputsOf runs m on positions in gonnx and returns its outputs (see
// asOutputs).
func outputsOf(t *testing.T, m *pb.ModelProto, positions []position) outputs {
	t.Helper()
	logits, values := runGonnx(t, m, positions, false)
	return asOutputs(t, positions, logits, values)
}

// asOutputs returns a model's outputs for positions from its logits and
// values, checking that every masked action's logit is exactly
// MaskedLogit.
func asOutputs(t *testing.T, positions []position, logits, values []float64) outputs {
	t.Helper()
	out := outputs{make([][]float64, len(positions)), make([][]float64, len(positions))}
	for i, p := range positions {
		row := logits[i*env.NumActions : (i+1)*env.NumActions]
		out.logProbs[i], out.values[i] = logSoftmax(row, p.legal), values[i:i+1]
		isLegal := make(map[env.Action]bool, len(p.legal))
		for _, a := range p.legal {
			isLegal[a] = true
		}
		for a, l := range row {
			if !isLegal[env.Action(a)] && l != onnx.MaskedLogit {
				t.Fatalf("position %d: illegal action %d has logit %g, want %g", i, a, l, float32(onnx.MaskedLogit))
			}
		}
	}
	return out
}

// onnxruntimeOutputs runs m on positions in onnxruntime for Node
// (testdata/ort_run.js, node from the PATH) and returns its outputs, if
// the environment variable DEATHSTACKS_ORT names a folder with
// onnxruntime-node installed (npm install --ignore-scripts
// onnxruntime-node@1.30.0 in it); unset, it returns false (as in CI). Set,
// a run that fails fails the test.
func onnxruntimeOutputs(t *testing.T, m *pb.ModelProto, positions []position) (outputs, bool) {
	t.Helper()
	folder := os.Getenv("DEATHSTACKS_ORT")
	if folder == "" {
		return outputs{}, false
	}
	dir := t.TempDir()
	data, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	obs, mask := inputs(positions, false)
	var raw bytes.Buffer
	if err := binary.Write(&raw, binary.LittleEndian, obs); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"net.onnx": data, "obs.f32": raw.Bytes(), "mask.u8": mask} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("node", filepath.Join("testdata", "ort_run.js"), dir)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(folder, "node_modules"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("onnxruntime (DEATHSTACKS_ORT=%s): %v\n%s", folder, err, out)
	}
	read := func(name string, n int) []float64 {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		v := make([]float32, n)
		if err := binary.Read(bytes.NewReader(b), binary.LittleEndian, v); err != nil {
			t.Fatalf("onnxruntime's %s: %v", name, err)
		}
		return widen(v)
	}
	n := len(positions)
	return asOutputs(t, positions, read("logits.f32", n*env.NumActions), read("values.f32", n)), true
}

// distance is how far apart two outputs are at most.
type distance struct{ logProb, scaled, value float64 }

// distance returns the largest differences between o and p: of a
// log-probability, absolute and relative to max(1, |log-probability|),
// and of a value. A log-probability whose probability is subnormal in
// float32 on either side is left out: it has lost its precision in Go.
func (o outputs) distance(p outputs) distance {
	var d distance
	for i := range o.logProbs {
		for j, lp := range o.logProbs[i] {
			q := p.logProbs[i][j]
			if min(lp, q) < math.Log(math.SmallestNonzeroFloat32*(1<<23)) {
				continue
			}
			diff := math.Abs(lp - q)
			d.logProb = max(d.logProb, diff)
			d.scaled = max(d.scaled, diff/max(1, math.Abs(q)))
		}
		d.value = max(d.value, math.Abs(o.values[i][0]-p.values[i][0]))
	}
	return d
}

// TestEveryActionLegal checks the C library's predict form: with a mask of
// ones the logits are unmasked, and a log-softmax over all of them is the
// log of Go's priors over every action.
func TestEveryActionLegal(t *testing.T) {
	net, err := model.New(model.Config{Blocks: 1, Channels: 8, ValuePlanes: 1, ValueHidden: 16}, rand.New(rand.NewPCG(7, 8)))
	if err != nil {
		t.Fatal(err)
	}
	m, err := onnx.Model(net, provenance)
	if err != nil {
		t.Fatal(err)
	}
	positions := gamePositions(t, 8)
	logits, values := runGonnx(t, m, positions, true)
	all := make([]env.Action, env.NumActions)
	for a := range all {
		all[a] = env.Action(a)
	}
	for i, p := range positions {
		priors := [][]float32{make([]float32, env.NumActions)}
		v := make([]float32, 1)
		if err := net.Evaluate(p.obs, [][]env.Action{all}, priors, v); err != nil {
			t.Fatal(err)
		}
		for a, lp := range logSoftmax(logits[i*env.NumActions:(i+1)*env.NumActions], all) {
			if d := math.Abs(lp - math.Log(float64(priors[0][a]))); d > tolerance {
				t.Fatalf("position %d action %d: log-probability %g, Go's %g", i, a, lp, math.Log(float64(priors[0][a])))
			}
		}
		if d := math.Abs(values[i] - float64(v[0])); d > tolerance {
			t.Fatalf("position %d: value %g, Go's %g", i, values[i], v[0])
		}
	}
}

func TestMetadata(t *testing.T) {
	net, err := model.New(model.Config{Blocks: 2, Channels: 4, ValuePlanes: 1, ValueHidden: 8}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	net.Meta["run"] = "r1"
	m, err := onnx.Model(net, provenance)
	if err != nil {
		t.Fatal(err)
	}
	meta := map[string]string{}
	for _, p := range m.GetMetadataProps() {
		meta[p.GetKey()] = p.GetValue()
	}
	for key, want := range map[string]string{
		onnx.MetaEncodingVersion: "1",
		onnx.MetaArchitecture:    "2x4 (value 1/8)",
		onnx.MetaTrainingSteps:   "0",
		onnx.MetaCommand:         provenance.Command,
		onnx.MetaSource:          provenance.Source,
		onnx.MetaDate:            "2026-12-04T06:00:00Z",
		"network.run":            "r1",
	} {
		t.Run(key, func(t *testing.T) {
			if meta[key] != want {
				t.Errorf("%s = %q, want %q", key, meta[key], want)
			}
		})
	}
	if !strings.Contains(meta[onnx.MetaActionLayout], "(direction*24 + count-1)*36 + from") {
		t.Errorf("action layout %q", meta[onnx.MetaActionLayout])
	}
	if v := m.GetOpsetImport()[0].GetVersion(); v < 13 {
		t.Errorf("opset %d, want 13 or later", v)
	}
}

// TestONNXChecker runs onnx's own checker (full_check, with shape
// inference) on an exported model, with Debian's python3-onnx.
func TestONNXChecker(t *testing.T) {
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import onnx").Run(); err != nil {
		t.Skipf("onnx's checker needs %s with the onnx module (Debian's python3-onnx): %v", python, err)
	}
	net, err := train.LoadNetwork("")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "net.onnx")
	if err := onnx.Write(path, net, provenance); err != nil {
		t.Fatal(err)
	}
	script := `import sys, onnx
m = onnx.load(sys.argv[1])
onnx.checker.check_model(m, full_check=True)
out = {o.name: [d.dim_param or d.dim_value for d in o.type.tensor_type.shape.dim] for o in m.graph.output}
print(m.opset_import[0].version, out)`
	out, err := exec.Command(python, "-c", script, path).CombinedOutput()
	if err != nil {
		t.Fatalf("onnx checker: %v\n%s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), "13 {'logits': ['batch', 6912], 'value': ['batch']}"; got != want {
		t.Errorf("checker printed %q, want %q", got, want)
	}
}

func TestWriteIsReadable(t *testing.T) {
	net, err := model.New(model.Config{Blocks: 0, Channels: 2, ValuePlanes: 1, ValueHidden: 2}, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "net.onnx")
	if err := onnx.Write(path, net, provenance); err != nil {
		t.Fatal(err)
	}
	if _, err := gonnx.NewModelFromFile(path); err != nil {
		t.Fatal(err)
	}
	if err := onnx.Write(filepath.Join(t.TempDir(), "missing", "net.onnx"), net, provenance); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
	if _, err := os.Stat(path); err != nil {
		t.Error(err)
	}
}

// TestAuxHeadsLeftOut: a network with auxiliary heads, which only
// training computes, exports as the same network without them.
func TestAuxHeadsLeftOut(t *testing.T) {
	cfg := model.Config{Blocks: 1, Channels: 8, ValuePlanes: 1, ValueHidden: 16, ReplyHead: true, OwnershipHead: true, ScoreHead: true}
	net, err := model.New(cfg, rand.New(rand.NewPCG(9, 10)))
	if err != nil {
		t.Fatal(err)
	}
	with, err := onnx.Model(net, provenance)
	if err != nil {
		t.Fatal(err)
	}
	without, err := onnx.Model(net.WithoutAux(), provenance)
	if err != nil {
		t.Fatal(err)
	}
	if with.String() != without.String() {
		t.Error("the model of a network with auxiliary heads differs from the model without them")
	}
}
