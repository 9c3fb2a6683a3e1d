package fused

import (
	"math"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"gorgonia.org/tensor"
)

// TestPolicyLossOp checks the loss of one row with two legal actions
// against its definition, and that a non-finite logit, legal or not,
// makes it NaN.
func TestPolicyLossOp(t *testing.T) {
	const na = env.NumActions
	dense := func(v []float32) *tensor.Dense {
		return tensor.New(tensor.WithShape(1, na), tensor.WithBacking(v))
	}
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
			z, mask, target := make([]float32, na), make([]float32, na), make([]float32, na)
			for a := range mask {
				mask[a] = -1e9
			}
			mask[3], mask[7] = 0, 0
			z[3], z[7], z[9] = 2, tc.legal, tc.illegal
			target[3], target[7] = 0.25, 0.75
			op := NewPolicyLossOp(1)
			out, err := op.Do(dense(z), dense(mask), dense(target))
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
		})
	}
}
