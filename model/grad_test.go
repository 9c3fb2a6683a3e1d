package model

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// trainerGradients returns a trainer's losses and gradients (copied) for
// one batch, without a step.
func trainerGradients(t *testing.T, tr *Trainer, batch []Sample) (Losses, [][]float32) {
	t.Helper()
	if err := tr.check(batch); err != nil {
		t.Fatal(err)
	}
	defer tr.zeroGrads()
	l, grads, err := tr.gradients(batch)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]float32, len(grads.parts[0]))
	for i, g := range grads.parts[0] {
		out[i] = slices.Clone(grads.mean(i, 0, len(g)))
	}
	return l, out
}

// fusedAndStockGradients returns the losses and gradients of a fused and
// a stock trainer of n for one batch.
func fusedAndStockGradients(t *testing.T, n *Network, cfg TrainConfig, batch []Sample) (fl Losses, fg [][]float32, sl Losses, sg [][]float32) {
	t.Helper()
	fused, err := NewTrainer(n, cfg)
	if err != nil {
		t.Fatal(err)
	}
	stock, err := NewStockTrainer(n, cfg)
	if err != nil {
		t.Fatal(err)
	}
	fl, fg = trainerGradients(t, fused, batch)
	sl, sg = trainerGradients(t, stock, batch)
	return fl, fg, sl, sg
}

// TestFusedGradientsMatchStock compares the fused training graph's
// losses and gradients with gorgonia's stock graph on random networks and
// batches of several sizes.
func TestFusedGradientsMatchStock(t *testing.T) {
	for _, nc := range fusedTestConfigs {
		for _, size := range []int{1, 5} {
			t.Run(fmt.Sprintf("%v/batch=%d", nc, size), func(t *testing.T) {
				n := randomNetwork(t, nc, 11)
				batch := samplePositions(seeded(12), size)
				cfg := tinyTrainConfig(size)
				cfg.ValueWeight = 0.7
				fl, fg, sl, sg := fusedAndStockGradients(t, n, cfg, batch)
				if math.Abs(fl.Policy-sl.Policy) > 1e-4*(1+sl.Policy) || math.Abs(fl.Value-sl.Value) > 1e-4*(1+sl.Value) ||
					math.Abs(fl.Entropy-sl.Entropy) > 1e-4*(1+sl.Entropy) {
					t.Errorf("fused losses %+v, stock %+v", fl, sl)
				}
				for i, s := range nc.specs() {
					compareGradients(t, s.Name, fg[i], sg[i], 1e-3)
				}
			})
		}
	}
}

// TestFusedGradientsAfterAnotherBatch checks that a run leaves nothing
// behind: the fused ops keep buffers across runs (the policy loss clears
// only the last run's legal actions), and gorgonia's nodes of the
// training graph write into their last run's values, so a trainer's
// gradients of a batch after another batch must be those of a fresh
// trainer, bit for bit; with and without the optional losses.
func TestFusedGradientsAfterAnotherBatch(t *testing.T) {
	type setup struct {
		name  string
		cfg   Config
		train func(batch int) TrainConfig
		batch func(seed uint64) []Sample
	}
	const size = 6
	plain := func(seed uint64) []Sample { return samplePositions(seeded(seed), size) }
	var setups []setup
	for _, nc := range fusedTestConfigs {
		setups = append(setups, setup{nc.String(), nc, tinyTrainConfig, plain})
	}
	setups = append(setups, setup{"aux", auxConfig, auxTrainConfig, func(seed uint64) []Sample {
		return withAuxTargets(seeded(seed+100), plain(seed))
	}})
	for _, st := range setups {
		t.Run(st.name, func(t *testing.T) {
			n := randomNetwork(t, st.cfg, 13)
			cfg := st.train(size)
			used, err := NewTrainer(n, cfg)
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := NewTrainer(n, cfg)
			if err != nil {
				t.Fatal(err)
			}
			trainerGradients(t, used, st.batch(14))
			batch := st.batch(15)
			ul, ug := trainerGradients(t, used, batch)
			fl, fg := trainerGradients(t, fresh, batch)
			if ul != fl {
				t.Errorf("losses after another batch %+v, fresh %+v", ul, fl)
			}
			for i, s := range st.cfg.specs() {
				if !slices.Equal(ug[i], fg[i]) {
					t.Errorf("gradient of %s differs after another batch", s.Name)
				}
			}
		})
	}
}

// compareGradients fails unless got and want agree within tol relative
// to the largest magnitude of want.
func compareGradients(t *testing.T, name string, got, want []float32, tol float64) {
	t.Helper()
	scale := 1e-3
	for _, w := range want {
		scale = max(scale, math.Abs(float64(w)))
	}
	for j := range want {
		if d := math.Abs(float64(got[j] - want[j])); !(d <= tol*scale) {
			t.Errorf("gradient of %s[%d] is %v, want %v (scale %v)", name, j, got[j], want[j], scale)
			return
		}
	}
}

// TestFusedGradientsMatchReference checks the fused graph's gradients
// against central differences of the plain-Go reference loss, in float64,
// at random coordinates of every learnable.
func TestFusedGradientsMatchReference(t *testing.T) {
	cfg := Config{Blocks: 2, Channels: 6, ValuePlanes: 2, ValueHidden: 5}
	n := randomNetwork(t, cfg, 21)
	batch := samplePositions(seeded(22), 3)
	tc := tinyTrainConfig(len(batch))
	tc.ValueWeight = 0.5
	tr, err := NewTrainer(n, tc)
	if err != nil {
		t.Fatal(err)
	}
	_, grads := trainerGradients(t, tr, batch)
	loss := func(w [][]float32) float64 {
		var total float64
		for _, s := range batch {
			logits, v := refForward(cfg, w, s.Obs)
			p, q := refLosses(logits, v, s)
			total += (p + tc.ValueWeight*q) / float64(len(batch))
		}
		return total
	}
	rng := seeded(23)
	for i, s := range cfg.specs() {
		t.Run(s.Name, func(t *testing.T) {
			for range 4 {
				j := rng.IntN(s.Size())
				w := n.Clone().weights
				orig := w[i][j]
				const h = 1e-3
				w[i][j] = orig + h
				up := loss(w)
				w[i][j] = orig - h
				down := loss(w)
				// The step really taken is the float32 difference.
				want := (up - down) / (float64(orig+h) - float64(orig-h))
				if got := float64(grads[i][j]); math.Abs(got-want) > 2e-3*(1+math.Abs(want)) {
					t.Errorf("gradient of %s[%d] is %v, central difference %v", s.Name, j, got, want)
				}
			}
		})
	}
}
