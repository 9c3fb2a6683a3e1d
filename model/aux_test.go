package model

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/graph"
)

// auxConfig is tinyConfig with every auxiliary head.
var auxConfig = func() Config {
	c := tinyConfig
	c.ReplyHead, c.OwnershipHead, c.ScoreHead = true, true, true
	return c
}()

// withAuxTargets gives samples random auxiliary targets: each sample's
// reply is a random distribution over the next sample's legal actions,
// its ownership and score random; every third sample lacks them all.
func withAuxTargets(rng *rand.Rand, samples []Sample) []Sample {
	for i := range samples {
		s := &samples[i]
		s.Surprise = float32(rng.Float64())
		if i%3 == 2 {
			continue
		}
		next := samples[(i+1)%len(samples)]
		s.ReplyLegal = slices.Clone(next.Legal)
		s.Reply = make([]float32, len(s.ReplyLegal))
		var sum float32
		for j := range s.Reply {
			s.Reply[j] = float32(rng.Float64())
			sum += s.Reply[j]
		}
		for j := range s.Reply {
			s.Reply[j] /= sum
		}
		s.Ownership = make([]float32, env.NumSquares)
		for k := range s.Ownership {
			s.Ownership[k] = float32(rng.IntN(3) - 1)
		}
		s.Score, s.Final = float32(rng.Float64()*2-1), true
	}
	return samples
}

// auxTrainConfig is tinyTrainConfig with every optional loss weighed.
func auxTrainConfig(batch int) TrainConfig {
	c := tinyTrainConfig(batch)
	c.ReplyWeight, c.OwnershipWeight, c.ScoreWeight = 0.5, 0.7, 0.9
	c.SoftPolicyWeight, c.SoftPolicyTemperature = 0.6, 4
	return c
}

// TestAuxGradientsMatchStock compares the fused training graph's optional
// losses and gradients with gorgonia's stock graph.
func TestAuxGradientsMatchStock(t *testing.T) {
	for _, size := range []int{1, 5} {
		t.Run(fmt.Sprintf("batch=%d", size), func(t *testing.T) {
			n := randomNetwork(t, auxConfig, 21)
			batch := withAuxTargets(seeded(22), samplePositions(seeded(23), size))
			fl, fg, sl, sg := fusedAndStockGradients(t, n, auxTrainConfig(size), batch)
			for _, p := range []struct {
				name      string
				got, want float64
			}{{"reply", fl.Reply, sl.Reply}, {"ownership", fl.Ownership, sl.Ownership}, {"score", fl.Score, sl.Score}, {"soft policy", fl.SoftPolicy, sl.SoftPolicy}} {
				if math.Abs(p.got-p.want) > 1e-4*(1+math.Abs(p.want)) {
					t.Errorf("%s loss: fused %v, stock %v", p.name, p.got, p.want)
				}
			}
			if size > 1 && (fl.Reply == 0 || fl.Ownership == 0 || fl.Score == 0 || fl.SoftPolicy == 0) {
				t.Errorf("an optional loss is 0: %+v", fl)
			}
			for i, s := range auxConfig.specs() {
				compareGradients(t, s.Name, fg[i], sg[i], 1e-3)
			}
		})
	}
}

// TestAuxGradientsMatchDifferences checks the fused graph's gradients of
// the auxiliary heads' weights and of the trunk against central
// differences of the trainer's own loss (float32, so a loose tolerance).
func TestAuxGradientsMatchDifferences(t *testing.T) {
	const size = 4
	n := randomNetwork(t, auxConfig, 31)
	batch := withAuxTargets(seeded(32), samplePositions(seeded(33), size))
	cfg := auxTrainConfig(size)
	tr, err := NewTrainer(n, cfg)
	if err != nil {
		t.Fatal(err)
	}
	loss := func() float64 {
		l, _ := trainerGradients(t, tr, batch)
		return l.Policy + cfg.ValueWeight*l.Value + cfg.auxTotal(l)
	}
	_, grads := trainerGradients(t, tr, batch)
	rng := seeded(34)
	specs := auxConfig.specs()
	for i := auxConfig.inferenceParams() - 1; i < len(specs); i++ {
		t.Run(specs[i].Name, func(t *testing.T) {
			for range 3 {
				j := rng.IntN(len(n.weights[i]))
				const eps = 1e-2
				w := n.weights[i][j]
				n.weights[i][j] = w + eps
				up := loss()
				n.weights[i][j] = w - eps
				down := loss()
				n.weights[i][j] = w
				want := (up - down) / (2 * eps)
				if got := float64(grads[i][j]); math.Abs(got-want) > 0.02+0.05*math.Abs(want) {
					t.Errorf("gradient of %s[%d] is %v, central difference %v", specs[i].Name, j, got, want)
				}
			}
		})
	}
}

// TestAuxTrainingLowersLosses trains on one batch whose targets are
// functions of the positions and expects each optional loss to fall.
func TestAuxTrainingLowersLosses(t *testing.T) {
	const size = 12
	n := randomNetwork(t, auxConfig, 41)
	batch := withAuxTargets(seeded(42), samplePositions(seeded(43), size))
	for i := range batch {
		s := &batch[i]
		if s.Reply == nil {
			continue
		}
		clear(s.Reply)
		s.Reply[0] = 1
		var lead float64
		for k := range s.Ownership {
			s.Ownership[k] = s.Obs[k]*2 - 1 // the first plane's squares
			lead += float64(s.Ownership[k])
		}
		s.Score = float32(math.Tanh(lead / 10))
	}
	tr, err := NewTrainer(n, auxTrainConfig(size))
	if err != nil {
		t.Fatal(err)
	}
	first, err := tr.Step(batch)
	if err != nil {
		t.Fatal(err)
	}
	last := first
	for range 100 {
		if last, err = tr.Step(batch); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []struct {
		name        string
		first, last float64
	}{{"reply", first.Reply, last.Reply}, {"ownership", first.Ownership, last.Ownership}, {"score", first.Score, last.Score}, {"soft policy", first.SoftPolicy, last.SoftPolicy}} {
		if !(p.last < 0.8*p.first) {
			t.Errorf("%s loss went from %v to %v: want a fall by a fifth", p.name, p.first, p.last)
		}
	}
	if want := last.Policy + last.Value + auxTrainConfig(size).auxTotal(last) + last.L2; math.Abs(last.Total-want) > 1e-9 {
		t.Errorf("total %v, parts add up to %v", last.Total, want)
	}
}

// TestSoftTarget checks the soft target's shape: renormalised, flatter,
// the same order.
func TestSoftTarget(t *testing.T) {
	p := softened([]float32{0.9, 0.09, 0.01}, 4)
	if sum := p[0] + p[1] + p[2]; math.Abs(float64(sum)-1) > 1e-6 {
		t.Errorf("soft target sums to %v", sum)
	}
	if !(p[0] > p[1] && p[1] > p[2] && p[0] < 0.9 && p[2] > 0.01) {
		t.Errorf("soft target %v of 0.9, 0.09, 0.01: want flatter in the same order", p)
	}
}

// TestSquareOrder checks that the reply head's order (the fused logits')
// is a permutation of the actions.
func TestSquareOrder(t *testing.T) {
	seen := make([]bool, env.NumActions)
	for a := range env.NumActions {
		k := graph.SquareOrder.Index(env.Action(a))
		if k < 0 || k >= env.NumActions || seen[k] {
			t.Fatalf("action %d maps to %d: out of range or taken", a, k)
		}
		seen[k] = true
	}
}

func TestSampleValidateAux(t *testing.T) {
	good := withAuxTargets(seeded(51), samplePositions(seeded(52), 2))[0]
	if err := good.Validate(); err != nil {
		t.Fatalf("good sample: %v", err)
	}
	tests := []struct {
		name string
		edit func(s *Sample)
		want string
	}{
		{"reply without actions", func(s *Sample) { s.ReplyLegal = nil }, "reply"},
		{"reply short", func(s *Sample) { s.Reply = s.Reply[1:] }, "reply"},
		{"reply not a distribution", func(s *Sample) { s.Reply[0] += 0.5 }, "reply: policy sums"},
		{"reply action twice", func(s *Sample) { s.ReplyLegal[1] = s.ReplyLegal[0] }, "reply: action"},
		{"empty reply", func(s *Sample) { s.Reply, s.ReplyLegal = []float32{}, []env.Action{} }, "reply: no legal"},
		{"ownership short", func(s *Sample) { s.Ownership = s.Ownership[:35] }, "ownership values"},
		{"ownership out of range", func(s *Sample) { s.Ownership[4] = 2 }, "ownership 2 of square 4"},
		{"ownership NaN", func(s *Sample) { s.Ownership[0] = float32(math.NaN()) }, "ownership NaN"},
		{"score out of range", func(s *Sample) { s.Score = -1.5 }, "score"},
		{"negative surprise", func(s *Sample) { s.Surprise = -1 }, "surprise"},
		{"infinite surprise", func(s *Sample) { s.Surprise = float32(math.Inf(1)) }, "surprise"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := good
			s.ReplyLegal, s.Reply, s.Ownership = slices.Clone(good.ReplyLegal), slices.Clone(good.Reply), slices.Clone(good.Ownership)
			tt.edit(&s)
			err := s.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate() = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

// TestAuxNetworkFile checks that a network with auxiliary heads is
// written as format version 2 and read back bit for bit, that one without
// stays version 1, and that WithoutAux drops the heads, not the play.
func TestAuxNetworkFile(t *testing.T) {
	n := randomNetwork(t, auxConfig, 61)
	var buf bytes.Buffer
	if _, err := n.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(buf.Bytes()[8:]); v != formatVersionAux {
		t.Errorf("format version %d, want %d", v, formatVersionAux)
	}
	back, err := ReadNetwork(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if back.Config() != auxConfig {
		t.Errorf("read config %v, want %v", back.Config(), auxConfig)
	}
	for i := range n.weights {
		if !slices.Equal(back.weights[i], n.weights[i]) {
			t.Errorf("tensor %d differs after the round trip", i)
		}
	}
	plain := n.WithoutAux()
	if plain.Config().HasAux() || plain.Config() != tinyConfig || len(plain.Weights()) != tinyConfig.inferenceParams() {
		t.Errorf("WithoutAux has %v with %d tensors", plain.Config(), len(plain.Weights()))
	}
	buf.Reset()
	if _, err := plain.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(buf.Bytes()[8:]); v != FormatVersion {
		t.Errorf("a network without auxiliary heads has format version %d, want %d", v, FormatVersion)
	}
	samples := samplePositions(seeded(62), 5)
	p1, v1 := evaluateAll(t, n, samples)
	p2, v2 := evaluateAll(t, plain, samples)
	if !slices.Equal(v1, v2) {
		t.Errorf("values %v with auxiliary heads, %v without", v1, v2)
	}
	for i := range p1 {
		if !slices.Equal(p1[i], p2[i]) {
			t.Errorf("priors of position %d differ without the auxiliary heads", i)
		}
	}
	if err := plain.CheckConfig(auxConfig); err == nil || !strings.Contains(err.Error(), "reply_head") {
		t.Errorf("CheckConfig of a network without heads against %v: %v, want a reply_head error", auxConfig, err)
	}
	if auxConfig.FLOPs() != tinyConfig.FLOPs() {
		t.Errorf("FLOPs %d with auxiliary heads, %d without: inference does not compute them", auxConfig.FLOPs(), tinyConfig.FLOPs())
	}
}

// TestAuxBitsCorrupt: a version-2 file must name at least one known head.
func TestAuxBitsCorrupt(t *testing.T) {
	var buf bytes.Buffer
	if _, err := randomNetwork(t, auxConfig, 71).WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	const offAux = 40 // magic 8, version 4, encoding 12, config 16
	for _, bits := range []uint32{0, 8} {
		b := slices.Clone(buf.Bytes())
		binary.LittleEndian.PutUint32(b[offAux:], bits)
		if _, err := ReadNetwork(bytes.NewReader(fixCRC(b))); err == nil || !strings.Contains(err.Error(), "auxiliary heads") {
			t.Errorf("auxiliary head bits %#x: %v, want a corrupt-file error", bits, err)
		}
	}
}

// BenchmarkTrainStepCandidates measures what the optional losses cost a
// training step of the default network at the run's batch of 128, side
// by side with none.
func BenchmarkTrainStepCandidates(b *testing.B) {
	const size = 128
	batch := withAuxTargets(seeded(81), samplePositions(seeded(82), size))
	plain := DefaultConfig()
	heads := plain
	heads.ReplyHead, heads.OwnershipHead, heads.ScoreHead = true, true, true
	soft := DefaultTrainConfig()
	soft.BatchSize, soft.SoftPolicyWeight = size, 8
	base := DefaultTrainConfig()
	base.BatchSize = size
	for _, v := range []struct {
		name string
		cfg  Config
		tc   TrainConfig
	}{{"none", plain, base}, {"aux-heads", heads, base}, {"soft-policy", plain, soft}, {"all", heads, soft}} {
		b.Run(v.name, func(b *testing.B) {
			n, err := New(v.cfg, seeded(1))
			if err != nil {
				b.Fatal(err)
			}
			tr, err := NewTrainer(n, v.tc)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := tr.Step(batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

// TestAuxHeadsAtWeightZero: heads whose losses weigh 0 still train (their
// gradients are 0) and leave the other losses as a network without them
// has them.
func TestAuxHeadsAtWeightZero(t *testing.T) {
	const size = 6
	batch := withAuxTargets(seeded(91), samplePositions(seeded(92), size))
	cfg := tinyTrainConfig(size)
	cfg.ReplyWeight, cfg.OwnershipWeight, cfg.ScoreWeight = 0, 0, 0
	withHeads := randomNetwork(t, auxConfig, 93)
	plain := withHeads.WithoutAux()
	a, err := NewTrainer(withHeads, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewTrainer(plain, cfg)
	if err != nil {
		t.Fatal(err)
	}
	la, ga := trainerGradients(t, a, batch)
	lb, gb := trainerGradients(t, b, batch)
	if la.Policy != lb.Policy || la.Value != lb.Value {
		t.Errorf("losses %+v with heads at weight 0, %+v without", la, lb)
	}
	for i := range gb {
		compareGradients(t, auxConfig.specs()[i].Name, ga[i], gb[i], 1e-6)
	}
	for i := len(gb); i < len(ga); i++ {
		if slices.ContainsFunc(ga[i], func(x float32) bool { return x != 0 }) {
			t.Errorf("%s has a gradient at weight 0", auxConfig.specs()[i].Name)
		}
	}
	if _, err := a.Step(batch); err != nil {
		t.Fatal(err)
	}
}
