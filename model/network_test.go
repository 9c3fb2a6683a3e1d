package model

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/fused"
	"github.com/deathstacks/deathstacks/model/internal/graph"
)

func TestForwardMatchesReference(t *testing.T) {
	for _, cfg := range []Config{tinyConfig, {Blocks: 2, Channels: 6, ValuePlanes: 2, ValueHidden: 5}} {
		t.Run(cfg.String(), func(t *testing.T) {
			n, err := New(cfg, seeded(1))
			if err != nil {
				t.Fatal(err)
			}
			// Make the biases non-zero so that their layout is checked too.
			rng := seeded(2)
			for i, s := range cfg.specs() {
				if !s.Decay {
					for j := range n.weights[i] {
						n.weights[i][j] = float32(rng.NormFloat64() * 0.1)
					}
				}
			}
			samples := samplePositions(seeded(3), 3)
			e := newEngine(n, 4, false)
			out, err := e.forward(len(samples), func(xs []float32) {
				for i, s := range samples {
					copy(xs[i*env.ObservationSize:], s.Obs)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			logits, values := out.actionLogits(len(samples)), out.values
			for i, s := range samples {
				wantLogits, wantValue := refForward(cfg, n.weights, s.Obs)
				got := logits[i*env.NumActions : (i+1)*env.NumActions]
				for a, w := range wantLogits {
					if math.Abs(float64(got[a])-w) > 1e-4*(1+math.Abs(w)) {
						t.Fatalf("sample %d action %d: logit %v, reference %v", i, a, got[a], w)
					}
				}
				if math.Abs(float64(values[i])-wantValue) > 1e-5 {
					t.Errorf("sample %d: value %v, reference %v", i, values[i], wantValue)
				}
			}
		})
	}
}

func TestEvaluatePriorsOverLegalActions(t *testing.T) {
	n, err := New(tinyConfig, seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	samples := samplePositions(seeded(4), 5)
	obs, legal, priors, values := evalArgs(samples)
	if err := n.Evaluate(obs, legal, priors, values); err != nil {
		t.Fatal(err)
	}
	for i := range samples {
		logits, value := refForward(tinyConfig, n.weights, samples[i].Obs)
		var sum float64
		for j, p := range priors[i] {
			if !(p > 0 && p <= 1) {
				t.Errorf("position %d: prior %v of legal action %d", i, p, legal[i][j])
			}
			sum += float64(p)
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Errorf("position %d: priors sum to %v", i, sum)
		}
		if math.Abs(float64(values[i])-value) > 1e-5 || values[i] < -1 || values[i] > 1 {
			t.Errorf("position %d: value %v, reference %v", i, values[i], value)
		}
		// The priors are the softmax over the legal logits only.
		dense := make([]float32, env.NumActions)
		for a := range dense {
			dense[a] = float32(logits[a])
		}
		want := make([]float32, len(legal[i]))
		if err := graph.LegalSoftmax(want, dense, graph.ActionOrder, legal[i]); err != nil {
			t.Fatal(err)
		}
		for j := range want {
			if math.Abs(float64(want[j]-priors[i][j])) > 1e-5 {
				t.Errorf("position %d: prior %d is %v, want %v", i, j, priors[i][j], want[j])
			}
		}
	}
}

func TestLegalSoftmax(t *testing.T) {
	big := func(v float32) []float32 {
		l := make([]float32, env.NumActions)
		for i := range l {
			l[i] = v
		}
		return l
	}
	tests := []struct {
		name   string
		logits []float32
		legal  []env.Action
		want   []float32
	}{
		// Index 0 is a real move: a position whose only legal move it is
		// must get probability 1 even when illegal logits are huge.
		{"only action 0, huge illegal logits", big(1e30), []env.Action{0}, []float32{1}},
		{"only action 0, tiny logit", append([]float32{-1e30}, big(1e30)[1:]...), []env.Action{0}, []float32{1}},
		{"large equal logits", big(1e4), []env.Action{0, 7, 6911}, []float32{1.0 / 3, 1.0 / 3, 1.0 / 3}},
		{"one dominant", append([]float32{5000}, big(0)[1:]...), []env.Action{3, 0}, []float32{0, 1}},
		{"-inf beside finite", append([]float32{float32(math.Inf(-1))}, big(2)[1:]...), []env.Action{0, 5}, []float32{0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make([]float32, len(tt.legal))
			if err := graph.LegalSoftmax(got, tt.logits, graph.ActionOrder, tt.legal); err != nil {
				t.Fatal(err)
			}
			for j := range got {
				if math.Abs(float64(got[j]-tt.want[j])) > 1e-6 {
					t.Errorf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// The priors against the softmax computed in float64, over random rows
// with many ties and logits from 30 apart to 1e-30 apart: each prior
// within 2e-6 relatively and the rounding of its logit's difference from
// the largest in float32 (a relative 6e-8 of the difference), tied logits
// the same prior bit for bit, and summing to 1 within 1e-6.
func TestLegalSoftmaxAgainstFloat64(t *testing.T) {
	rng := seeded(7)
	for k := range 400 {
		logits := make([]float32, env.NumActions)
		levels := []float32{0, float32(rng.NormFloat64()), float32(rng.NormFloat64() * 30), 1e-30}
		for i := range logits {
			logits[i] = levels[rng.IntN(len(levels))] + float32(rng.IntN(2)*rng.IntN(40))*0.1
		}
		legal := make([]env.Action, 1+rng.IntN(120))
		for j := range legal {
			legal[j] = env.Action(rng.IntN(env.NumActions))
		}
		got := make([]float32, len(legal))
		if err := graph.LegalSoftmax(got, logits, graph.ActionOrder, legal); err != nil {
			t.Fatal(err)
		}
		top := math.Inf(-1)
		for _, a := range legal {
			top = max(top, float64(logits[graph.ActionOrder.Index(a)]))
		}
		want, sum := make([]float64, len(legal)), 0.0
		for j, a := range legal {
			want[j] = math.Exp(float64(logits[graph.ActionOrder.Index(a)]) - top)
			sum += want[j]
		}
		prior := map[float32]float32{} // a logit's prior
		var total float64
		for j, a := range legal {
			w := want[j] / sum
			d := top - float64(logits[graph.ActionOrder.Index(a)])
			if math.Abs(float64(got[j])-w) > (2e-6+6e-8*d)*w+1e-37 {
				t.Fatalf("row %d, action %d: prior %v, want %v", k, a, got[j], w)
			}
			l := logits[graph.ActionOrder.Index(a)]
			if p, ok := prior[l]; ok && p != got[j] {
				t.Fatalf("row %d: logit %v has priors %v and %v", k, l, p, got[j])
			}
			prior[l] = got[j]
			total += float64(got[j])
		}
		if math.Abs(total-1) > 1e-6 {
			t.Fatalf("row %d: priors sum to %v", k, total)
		}
	}
}

// TestDivergedNetworkIsAnError checks that NaN weights give an error from
// every evaluator, not NaN priors or a caller left waiting.
func TestDivergedNetworkIsAnError(t *testing.T) {
	for _, tensor := range []int{0, len(tinyConfig.specs()) - 1} { // trunk, value bias
		n, _ := New(tinyConfig, seeded(1))
		n.weights[tensor][0] = float32(math.NaN())
		obs, legal, priors, values := evalArgs(samplePositions(seeded(2), 3))
		if err := n.Evaluate(obs, legal, priors, values); err == nil {
			t.Errorf("tensor %d NaN: Evaluate succeeded", tensor)
		}
		s, err := NewServer(n, ServerConfig{MaxBatch: 2, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Evaluate(obs, legal, priors, values); err == nil {
			t.Errorf("tensor %d NaN: Server.Evaluate succeeded", tensor)
		}
		s.Close()
	}
	for _, v := range []float64{math.Inf(1), math.Inf(-1), math.NaN()} {
		logits := []float32{1, float32(v)}
		if err := graph.LegalSoftmax(make([]float32, 2), logits, graph.ActionOrder, []env.Action{1, 0}); err == nil && !math.IsInf(v, -1) {
			t.Errorf("logit %v accepted", v)
		}
		if err := graph.LegalSoftmax(make([]float32, 1), logits, graph.ActionOrder, []env.Action{1}); err == nil {
			t.Errorf("a lone logit %v accepted", v)
		}
	}
}

func TestPaddedBatchMatchesFullBatch(t *testing.T) {
	n, err := New(tinyConfig, seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	samples := samplePositions(seeded(5), 4)
	e := newEngine(n, 4, false)
	run := func(k int) ([]float32, []float32) {
		out, err := e.forward(k, func(xs []float32) {
			for i, s := range samples[:k] {
				copy(xs[i*env.ObservationSize:], s.Obs)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return out.actionLogits(k), slices.Clone(out.values[:k])
	}
	fullLogits, fullValues := run(4)
	padLogits, padValues := run(3) // compiled for 4, one zero row
	if !slices.Equal(fullLogits[:3*env.NumActions], padLogits[:3*env.NumActions]) || !slices.Equal(fullValues[:3], padValues[:3]) {
		t.Error("rows of a padded batch differ from the same rows of a full batch")
	}
	// A batch of 1 runs another graph: equal up to rounding.
	oneLogits, oneValues := run(1)
	e2 := newEngine(n, 1, false)
	out, err := e2.forward(1, func(xs []float32) { copy(xs, samples[0].Obs) })
	if err != nil {
		t.Fatal(err)
	}
	single, singleV := out.actionLogits(1), out.values
	for a := range single {
		if math.Abs(float64(single[a]-oneLogits[a])) > 1e-5 {
			t.Fatalf("action %d: batch 1 logit %v, padded batch %v", a, single[a], oneLogits[a])
		}
	}
	if math.Abs(float64(singleV[0]-oneValues[0])) > 1e-6 {
		t.Errorf("batch 1 value %v, padded batch %v", singleV[0], oneValues[0])
	}
}

func TestSameSeedSameWeights(t *testing.T) {
	a, _ := New(tinyConfig, seeded(7))
	b, _ := New(tinyConfig, seeded(7))
	c, _ := New(tinyConfig, seeded(8))
	for i := range a.weights {
		if !slices.Equal(a.weights[i], b.weights[i]) {
			t.Fatalf("tensor %d differs between two networks of one seed", i)
		}
	}
	if slices.Equal(a.weights[0], c.weights[0]) {
		t.Error("two seeds gave the same weights")
	}
}

func TestEvaluateRejectsBadArguments(t *testing.T) {
	n, _ := New(tinyConfig, seeded(1))
	s := samplePositions(seeded(1), 1)[0]
	obs, legal, priors, values := evalArgs([]Sample{s})
	tests := []struct {
		name   string
		obs    []float32
		legal  [][]env.Action
		priors [][]float32
		values []float32
		want   string
	}{
		{"short observation", obs[1:], legal, priors, values, "observation values"},
		{"missing legal list", obs, nil, priors, values, "legal-action lists"},
		{"missing priors", obs, legal, nil, values, "prior slices"},
		{"no legal action", obs, [][]env.Action{{}}, [][]float32{{}}, values, "no legal actions"},
		{"priors too short", obs, legal, [][]float32{priors[0][1:]}, values, "priors for"},
		{"action out of range", obs, [][]env.Action{{env.NumActions}}, [][]float32{{0}}, values, "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := n.Evaluate(tt.obs, tt.legal, tt.priors, tt.values)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	testValidate(t, DefaultConfig, Config.Validate, []validateCase[Config]{
		{"default", func(*Config) {}, ""},
		{"no blocks", func(c *Config) { c.Blocks = 0 }, ""},
		{"negative blocks", func(c *Config) { c.Blocks = -1 }, "blocks"},
		{"zero channels", func(c *Config) { c.Channels = 0 }, "channels"},
		{"huge channels", func(c *Config) { c.Channels = 1 << 20 }, "channels"},
		{"zero value planes", func(c *Config) { c.ValuePlanes = 0 }, "value_planes"},
		{"zero value hidden", func(c *Config) { c.ValueHidden = 0 }, "value_hidden"},
	})
}

// validateCase is an edit of a default configuration and the key its
// Validate error must name ("" for a valid result).
type validateCase[C any] struct {
	name string
	edit func(*C)
	key  string
}

// testValidate runs validate on def() edited by each case.
func testValidate[C any](t *testing.T, def func() C, validate func(C) error, tests []validateCase[C]) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := def()
			tt.edit(&c)
			wantKeyError(t, validate(c), tt.key)
		})
	}
}

// wantKeyError checks a Validate result: nil when key is "", otherwise an
// error naming key.
func wantKeyError(t *testing.T, err error, key string) {
	t.Helper()
	var fe *configs.FieldError
	if (err == nil) != (key == "") || (err != nil && (!errors.As(err, &fe) || fe.Key != key)) {
		t.Errorf("Validate() = %v, want an error about %q", err, key)
	}
}

func TestCheckConfig(t *testing.T) {
	n, _ := New(tinyConfig, seeded(1))
	if err := n.CheckConfig(tinyConfig); err != nil {
		t.Errorf("same config: %v", err)
	}
	other := tinyConfig
	other.Channels++
	if err := n.CheckConfig(other); err == nil || !strings.Contains(err.Error(), "model.channels") {
		t.Errorf("other channels: %v", err)
	}
}

func TestFLOPs(t *testing.T) {
	c := Config{Blocks: 1, Channels: 2, ValuePlanes: 1, ValueHidden: 3}
	want := 2 * (36*(2*env.NumPlanes*9) + 2*36*(2*2*9) + 36*graph.PolicyPlanes*2 + 36*2 + 36*3 + 3)
	if got := c.FLOPs(); got != int64(want) {
		t.Errorf("FLOPs = %d, want %d", got, want)
	}
	// Training: the forward pass, the weights' gradients, and the inputs'
	// gradients of every layer but the stem.
	stem := 2 * 36 * (2 * env.NumPlanes * 9)
	if got, want := c.TrainFLOPs(), int64(3*want-stem); got != want {
		t.Errorf("TrainFLOPs = %d, want %d", got, want)
	}
}

func TestClone(t *testing.T) {
	n, _ := New(tinyConfig, seeded(1))
	n.Meta["name"] = "a"
	c := n.Clone()
	c.weights[0][0]++
	c.Meta["name"] = "b"
	if n.weights[0][0] == c.weights[0][0] || n.Meta["name"] != "a" {
		t.Error("clone shares state with its original")
	}
}

// TestDeepen checks that a deepened network computes what it was, bit for
// bit, with aux heads and all, that training reaches its new blocks, and
// that a shallower or invalid depth is refused.
func TestDeepen(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    Config
		blocks int
	}{
		{"same depth", tinyConfig, tinyConfig.Blocks},
		{"one more", tinyConfig, tinyConfig.Blocks + 1},
		{"from no block", Config{Blocks: 0, Channels: 5, ValuePlanes: 3, ValueHidden: 7}, 2},
		{"with aux heads", Config{Blocks: 1, Channels: 6, ValuePlanes: 1, ValueHidden: 4, ReplyHead: true, OwnershipHead: true, ScoreHead: true}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := randomNetwork(t, tc.cfg, 1)
			n.Meta["run"] = "shallow"
			d, err := n.Deepen(tc.blocks, seeded(9))
			if err != nil {
				t.Fatal(err)
			}
			want := tc.cfg
			want.Blocks = tc.blocks
			if err := d.CheckConfig(want); err != nil {
				t.Fatal(err)
			}
			if d.Steps() != n.Steps() || d.Meta["run"] != "shallow" {
				t.Errorf("steps %d, meta %v: want %d and the original's", d.Steps(), d.Meta, n.Steps())
			}
			samples := samplePositions(seeded(4), 7)
			obs, legal, priors, values := evalArgs(samples)
			if err := n.Evaluate(obs, legal, priors, values); err != nil {
				t.Fatal(err)
			}
			_, _, dPriors, dValues := evalArgs(samples)
			if err := d.Evaluate(obs, legal, dPriors, dValues); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(values, dValues) {
				t.Errorf("values %v, deepened %v", values, dValues)
			}
			for i := range priors {
				if !slices.Equal(priors[i], dPriors[i]) {
					t.Errorf("position %d: priors differ once deepened", i)
				}
			}
			// The auxiliary heads' weights come across too.
			for i, w := range n.weights[fused.TrunkParams(tc.cfg.Blocks):] {
				if !slices.Equal(w, d.weights[fused.TrunkParams(tc.blocks)+i]) {
					t.Errorf("head tensor %d differs once deepened", i)
				}
			}
		})
	}
	t.Run("training reaches the new blocks", func(t *testing.T) {
		d, err := randomNetwork(t, tinyConfig, 1).Deepen(2, seeded(9))
		if err != nil {
			t.Fatal(err)
		}
		tc := DefaultTrainConfig()
		tc.BatchSize = 16
		tr, err := NewTrainer(d, tc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Step(samplePositions(seeded(5), tc.BatchSize)); err != nil {
			t.Fatal(err)
		}
		w2 := tr.Network().weights[fused.TrunkParams(1)+2]
		if !slices.ContainsFunc(w2, func(x float32) bool { return x != 0 }) {
			t.Error("one step leaves the new block's second convolution at zero")
		}
	})
	for _, tc := range []struct {
		name   string
		blocks int
		want   string
	}{
		{"shallower", 0, "it has more"},
		{"too deep", maxBlocks + 1, "blocks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := randomNetwork(t, Config{Blocks: 1, Channels: 4, ValuePlanes: 1, ValueHidden: 4}, 1)
			if _, err := n.Deepen(tc.blocks, seeded(9)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Deepen(%d): %v, want an error naming %q", tc.blocks, err, tc.want)
			}
		})
	}
}

func TestBlend(t *testing.T) {
	for _, share := range []float32{1, 0.25, 1e-3} {
		t.Run(fmt.Sprintf("share %g", share), func(t *testing.T) {
			n, src := randomNetwork(t, tinyConfig, 1), randomNetwork(t, tinyConfig, 5)
			src.steps = 1234
			n.Meta["run"] = "avg"
			before := n.copyWeightsLocked(nil)
			// An engine over n sees the blended weights: the blend is a new version.
			samples := samplePositions(seeded(4), 5)
			obs, legal, priors, values := evalArgs(samples)
			if err := n.Evaluate(obs, legal, priors, values); err != nil {
				t.Fatal(err)
			}
			if err := n.Blend(src, share); err != nil {
				t.Fatal(err)
			}
			for i, w := range n.weights {
				for j := range w {
					want := before[i][j] + share*(src.weights[i][j]-before[i][j])
					if share == 1 {
						want = src.weights[i][j]
					}
					if w[j] != want {
						t.Fatalf("tensor %d [%d]: %v, want %v", i, j, w[j], want)
					}
				}
			}
			if n.Steps() != 1234 || n.Meta["run"] != "avg" {
				t.Errorf("steps %d, meta %v: want src's steps and its own meta", n.Steps(), n.Meta)
			}
			fresh := newNetwork(tinyConfig, n.copyWeightsLocked(nil), 0, nil)
			_, _, wantPriors, wantValues := evalArgs(samples)
			if err := fresh.Evaluate(obs, legal, wantPriors, wantValues); err != nil {
				t.Fatal(err)
			}
			if err := n.Evaluate(obs, legal, priors, values); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(values, wantValues) {
				t.Errorf("values after the blend %v, want %v", values, wantValues)
			}
		})
	}
	t.Run("averages", func(t *testing.T) {
		// Shares 1, 1/2, 1/3 make the plain mean of three networks.
		nets := []*Network{randomNetwork(t, tinyConfig, 1), randomNetwork(t, tinyConfig, 3), randomNetwork(t, tinyConfig, 5)}
		avg := randomNetwork(t, tinyConfig, 7)
		for k, src := range nets {
			if err := avg.Blend(src, 1/float32(k+1)); err != nil {
				t.Fatal(err)
			}
		}
		for i, w := range avg.weights {
			for j, x := range w {
				mean := (nets[0].weights[i][j] + nets[1].weights[i][j] + nets[2].weights[i][j]) / 3
				if math.Abs(float64(x-mean)) > 1e-6 {
					t.Fatalf("tensor %d [%d]: %v, want the mean %v", i, j, x, mean)
				}
			}
		}
	})
	for _, tc := range []struct {
		name  string
		src   Config
		share float32
		want  string
	}{
		{"other architecture", Config{Blocks: 2, Channels: 4, ValuePlanes: 1, ValueHidden: 4}, 0.5, "do not match"},
		{"share 0", tinyConfig, 0, "share 0"},
		{"share above 1", tinyConfig, 1.5, "share 1.5"},
		{"share NaN", tinyConfig, float32(math.NaN()), "share NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := randomNetwork(t, tinyConfig, 1)
			before := n.copyWeightsLocked(nil)
			err := n.Blend(randomNetwork(t, tc.src, 2), tc.share)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			for i := range before {
				if !slices.Equal(before[i], n.weights[i]) {
					t.Fatal("a refused blend changed the weights")
				}
			}
		})
	}
}
