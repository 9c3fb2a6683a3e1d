package fused

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"gorgonia.org/tensor"
)

// TestPolicyLossOp checks the loss and the entropy of one row with two
// legal actions against their definitions, and that a non-finite logit, legal or not,
// makes it NaN.
func TestPolicyLossOp(t *testing.T) {
	const na = env.NumActions
	for _, tc := range []struct {
		name    string
		illegal float32 // the logit of an illegal action
		legal   float32 // the logit of the second legal action
		nan     bool
	}{
		{"finite", 5, 1, false},
		{"infinite illegal logit", float32(math.Inf(1)), 1, true},
		{"NaN illegal logit", float32(math.NaN()), 1, true},
		{"infinite legal logit", 5, float32(math.Inf(-1)), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			z := make([]float32, na)
			z[3], z[7], z[9] = 2, tc.legal, tc.illegal
			targets := &Targets{Index: []int32{3, 7}, Prob: []float32{0.25, 0.75}, End: []int{2}}
			op := NewPolicyLossOp(1, targets)
			out, err := op.Do(tensor.New(tensor.WithShape(1, na), tensor.WithBacking(z)))
			if err != nil {
				t.Fatal(err)
			}
			got := float64(out.Data().([]float32)[0])
			if tc.nan {
				if !math.IsNaN(got) {
					t.Errorf("loss %v, want NaN", got)
				}
				return
			}
			lse := math.Log(math.Exp(2) + math.Exp(float64(tc.legal)))
			want := lse - 0.25*2 - 0.75*float64(tc.legal)
			if math.Abs(got-want) > 1e-6 {
				t.Errorf("loss %v, want %v", got, want)
			}
			var entropy float64
			for _, z := range []float64{2, float64(tc.legal)} {
				p := math.Exp(z - lse)
				entropy -= p * math.Log(p)
			}
			if math.Abs(op.Entropy()-entropy) > 1e-6 {
				t.Errorf("entropy %v, want %v", op.Entropy(), entropy)
			}
		})
	}
}

// TestPolicyLossOpRejectsTargets checks that targets that do not fit the
// batch are an error, not a wrong loss or a panic.
func TestPolicyLossOpRejectsTargets(t *testing.T) {
	const na = env.NumActions
	for _, tc := range []struct {
		name    string
		targets Targets
		want    string
	}{
		{"too few rows", Targets{Index: []int32{1}, Prob: []float32{1}, End: []int{1}}, "want 2 rows"},
		{"probabilities missing", Targets{Index: []int32{1, na + 2}, Prob: []float32{1}, End: []int{1, 2}}, "1 probabilities"},
		{"empty row", Targets{Index: []int32{1}, Prob: []float32{1}, End: []int{1, 1}}, "row 1 has no legal action"},
		{"index in another row", Targets{Index: []int32{1, 2}, Prob: []float32{1, 1}, End: []int{1, 2}}, "outside row 1"},
		{"index past the end", Targets{Index: []int32{1, 2 * na}, Prob: []float32{1, 1}, End: []int{1, 2}}, "outside row 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op := NewPolicyLossOp(2, &tc.targets)
			_, err := op.Do(tensor.New(tensor.WithShape(2, na), tensor.WithBacking(make([]float32, 2*na))))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one about %q", err, tc.want)
			}
		})
	}
}

func BenchmarkPolicyLossOp(b *testing.B) {
	// A training shard's batch of 32 rows, 40 legal actions a row.
	const rows, na = 32, env.NumActions
	rng := rand.New(rand.NewPCG(1, 2))
	z := make([]float32, rows*na)
	for i := range z {
		z[i] = float32(rng.NormFloat64())
	}
	var targets Targets
	for r := range rows {
		for k := range 40 {
			targets.Index = append(targets.Index, int32(r*na+k*na/40))
			targets.Prob = append(targets.Prob, 1.0/40)
		}
		targets.End = append(targets.End, len(targets.Index))
	}
	op := NewPolicyLossOp(rows, &targets)
	in := tensor.New(tensor.WithShape(rows, na), tensor.WithBacking(z))
	for b.Loop() {
		if _, err := op.Do(in); err != nil {
			b.Fatal(err)
		}
	}
}
