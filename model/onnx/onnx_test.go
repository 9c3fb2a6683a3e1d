package onnx_test

import (
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
	"gorgonia.org/tensor"
)

// tolerance is the largest difference allowed between gonnx's outputs and
// Go's: the goal for an independent runtime.
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
// model runs once).
func runGonnx(t *testing.T, m *pb.ModelProto, positions []position, allLegal bool) (logits, values []float32) {
	t.Helper()
	n := len(positions)
	logits, values = make([]float32, n*env.NumActions), make([]float32, n)
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
func runChunk(m *pb.ModelProto, positions []position, allLegal bool, logits, values []float32) error {
	rt, err := gonnx.NewModel(m)
	if err != nil {
		return err
	}
	rt.GetOperator = withUint8Cast(rt.GetOperator)
	n := len(positions)
	obs := make([]float32, 0, n*env.ObservationSize)
	mask := make([]uint8, n*env.NumActions)
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
	out, err := rt.Run(gonnx.Tensors{
		onnx.InputObservation: tensor.New(tensor.WithShape(n, env.NumPlanes, 6, 6), tensor.WithBacking(obs)),
		onnx.InputActionMask:  tensor.New(tensor.WithShape(n, env.NumActions), tensor.WithBacking(mask)),
	})
	if err != nil {
		return err
	}
	for name, want := range map[string][]int{onnx.OutputLogits: {n, env.NumActions}, onnx.OutputValue: {n}} {
		if got := out[name].Shape(); !slices.Equal(got, want) {
			return fmt.Errorf("%s has shape %v, want %v", name, got, want)
		}
	}
	copy(logits, out[onnx.OutputLogits].Data().([]float32))
	copy(values, out[onnx.OutputValue].Data().([]float32))
	return nil
}

// logSoftmax returns the log-probabilities of the actions of legal under
// a softmax over them of the row's logits, in float64.
func logSoftmax(row []float32, legal []env.Action) []float64 {
	top := math.Inf(-1)
	for _, a := range legal {
		top = max(top, float64(row[a]))
	}
	sum := 0.0
	for _, a := range legal {
		sum += math.Exp(float64(row[a]) - top)
	}
	out := make([]float64, len(legal))
	for i, a := range legal {
		out[i] = float64(row[a]) - top - math.Log(sum)
	}
	return out
}

// TestParityWithGo runs the built-in player's network, exported, in
// gonnx's runtime on 1,000 positions of games (20 under the race
// detector, 50 with -short), and compares its outputs with Go's
// Network.Evaluate: the values within tolerance, the log-probabilities of
// the legal actions (a log-softmax of the model's logits over them, and
// the log of Go's priors) within tolerance times max(1, |log-probability|),
// and every masked action's logit exactly MaskedLogit. Both runtimes
// compute in float32: the logits of this network reach about 15 in size,
// where float32's own rounding over the network's sums already comes to
// about 1e-5, so that the bound is absolute for the likely actions
// (probability 1/e and more) and relative for the unlikely ones.
func TestParityWithGo(t *testing.T) {
	n := 1000
	switch {
	case raceEnabled: // which slows gonnx twentyfold
		n = 20
	case testing.Short():
		n = 50
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
	logits, values := runGonnx(t, m, positions, false)

	obs := make([]float32, 0, n*env.ObservationSize)
	legal := make([][]env.Action, n)
	priors := make([][]float32, n)
	for i, p := range positions {
		obs = append(obs, p.obs...)
		legal[i], priors[i] = p.legal, make([]float32, len(p.legal))
	}
	goValues := make([]float32, n)
	if err := net.Evaluate(obs, legal, priors, goValues); err != nil {
		t.Fatal(err)
	}
	var worstPolicy, worstScaled, worstValue float64
	compared := 0
	for i, p := range positions {
		row := logits[i*env.NumActions : (i+1)*env.NumActions]
		for j, lp := range logSoftmax(row, p.legal) {
			if priors[i][j] < math.SmallestNonzeroFloat32*(1<<23) {
				continue // a subnormal prior has lost its precision in Go
			}
			d := math.Abs(lp - math.Log(float64(priors[i][j])))
			worstPolicy = max(worstPolicy, d)
			worstScaled = max(worstScaled, d/max(1, math.Abs(lp)))
			compared++
		}
		worstValue = max(worstValue, math.Abs(float64(values[i]-goValues[i])))
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
	t.Logf("%d positions, %d legal actions: max |log-probability difference| %.2g (%.2g relative to max(1, |log-probability|)), max |value difference| %.2g",
		n, compared, worstPolicy, worstScaled, worstValue)
	if worstScaled > tolerance || worstValue > tolerance {
		t.Errorf("gonnx differs from Go by %.2g (log-probabilities, relative to max(1, their size)) and %.2g (values), want at most %g",
			worstScaled, worstValue, tolerance)
	}
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
		if d := math.Abs(float64(values[i] - v[0])); d > tolerance {
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
