package model

import (
	"strings"
	"testing"
)

var _ evaluator = (*Engine)(nil)

// An engine gives the network's own evaluations, in batches larger than
// its own as in smaller ones, and follows the network's training steps.
func TestEngineEvaluatesAsTheNetwork(t *testing.T) {
	n, _ := New(tinyConfig, seeded(1))
	samples := samplePositions(seeded(2), 11)
	for _, maxBatch := range []int{1, 4, 16} {
		e, err := n.NewEngine(maxBatch)
		if err != nil {
			t.Fatal(err)
		}
		obs, legal, priors, values := evalArgs(samples)
		if err := e.Evaluate(obs, legal, priors, values); err != nil {
			t.Fatal(err)
		}
		checkAgainst(t, n, samples, priors, values)
	}

	e, err := n.NewEngine(4)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTrainer(n, tinyTrainConfig(4))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := tr.Step(samples[:4]); err != nil {
			t.Fatal(err)
		}
	}
	obs, legal, priors, values := evalArgs(samples)
	if err := e.Evaluate(obs, legal, priors, values); err != nil {
		t.Fatal(err)
	}
	checkAgainst(t, n.Clone(), samples, priors, values)
}

func TestEngineRefusesBadInput(t *testing.T) {
	n, _ := New(tinyConfig, seeded(1))
	for _, maxBatch := range []int{0, -3, 4097} {
		if _, err := n.NewEngine(maxBatch); err == nil || !strings.Contains(err.Error(), "want 1 to 4096") {
			t.Errorf("max batch %d: error %v", maxBatch, err)
		}
	}
	e, err := n.NewEngine(2)
	if err != nil {
		t.Fatal(err)
	}
	obs, legal, priors, values := evalArgs(samplePositions(seeded(2), 2))
	if err := e.Evaluate(obs[1:], legal, priors, values); err == nil {
		t.Error("a short observation accepted")
	}
}
