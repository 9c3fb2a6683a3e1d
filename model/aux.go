package model

import (
	"fmt"
	"math"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/fused"
	"github.com/deathstacks/deathstacks/model/internal/graph"
	G "gorgonia.org/gorgonia"
)

// The losses that only some trainings have: KataGo's auxiliary heads
// (the opponent's reply, ownership, score; see Config) and its soft
// policy target (TrainConfig.SoftPolicyWeight). The heads are gorgonia's
// nodes over the trunk's squares as rows (net.squares): a 1x1
// convolution is then one matrix product. They exist in training graphs
// only.

// auxLosses reads the last run's optional losses into l, each with scalar.
func auxLosses(a *graph.AuxShard, scalar func(*G.Node) (float64, error), l *Losses) error {
	for _, x := range []struct {
		node *G.Node
		dst  *float64
	}{{a.SoftLoss, &l.SoftPolicy}, {a.ReplyLoss, &l.Reply}, {a.OwnLoss, &l.Ownership}, {a.ScoreLoss, &l.Score}} {
		if x.node == nil {
			continue
		}
		v, err := scalar(x.node)
		if err != nil {
			return err
		}
		*x.dst = v
	}
	return nil
}

// auxTotal is the weighted sum of l's optional losses.
func (c TrainConfig) auxTotal(l Losses) float64 {
	return c.ReplyWeight*l.Reply + c.OwnershipWeight*l.Ownership + c.ScoreWeight*l.Score + c.SoftPolicyWeight*l.SoftPolicy
}

// loadAux writes part's optional targets into the inputs; main is the main
// policy loss's compact targets (the fused graph's), whose entries the
// soft target shares. A sample without a reply target gets one legal
// action of probability 1, whose loss and gradient are exactly 0; one
// without ownership or score a mask of 0.
func loadAux(a *graph.AuxShard, part []Sample, main *fused.Targets) {
	if a.Temperature > 0 {
		if a.Stock {
			clear(a.Soft)
			for i, s := range part {
				row := a.Soft[i*env.NumActions : (i+1)*env.NumActions]
				for j, p := range softened(s.Policy, a.Temperature) {
					row[s.Legal[j]] = p
				}
			}
		} else {
			t := &a.SoftTargets
			t.Index, t.End, t.Prob = main.Index, main.End, t.Prob[:0]
			for _, s := range part {
				t.Prob = append(t.Prob, softened(s.Policy, a.Temperature)...)
			}
		}
	}
	if a.Reply && a.Stock {
		for i := range a.ReplyMask {
			a.ReplyMask[i] = graph.IllegalLogit
		}
		clear(a.ReplyDense)
		for i, s := range part {
			mask, target := a.ReplyMask[i*env.NumActions:(i+1)*env.NumActions], a.ReplyDense[i*env.NumActions:(i+1)*env.NumActions]
			if s.Reply == nil {
				mask[0], target[0] = 0, 1
				continue
			}
			for j, act := range s.ReplyLegal {
				k := graph.SquareOrder.Index(act)
				mask[k], target[k] = 0, s.Reply[j]
			}
		}
	} else if a.Reply {
		t := &a.ReplyTargets
		t.Index, t.Prob, t.End = t.Index[:0], t.Prob[:0], t.End[:0]
		for i, s := range part {
			row := int32(i * env.NumActions)
			if s.Reply == nil {
				t.Index, t.Prob = append(t.Index, row), append(t.Prob, 1)
			}
			for j, act := range s.ReplyLegal {
				t.Index = append(t.Index, row+int32(graph.SquareOrder.Index(act)))
				t.Prob = append(t.Prob, s.Reply[j])
			}
			t.End = append(t.End, len(t.Index))
		}
	}
	if a.Own != nil {
		for i, s := range part {
			own, m := a.Own[i*env.NumSquares:(i+1)*env.NumSquares], a.OwnMask[i*env.NumSquares:(i+1)*env.NumSquares]
			if s.Ownership == nil {
				clear(own)
				clear(m)
				continue
			}
			copy(own, s.Ownership)
			for k := range m {
				m[k] = 1
			}
		}
	}
	if a.Score != nil {
		for i, s := range part {
			a.Score[i], a.ScoreMask[i] = s.Score, 0
			if s.Final {
				a.ScoreMask[i] = 1
			}
		}
	}
}

// softened is the soft policy target of policy: policy^(1/t),
// renormalised, in a new slice.
func softened(policy []float32, t float64) []float32 {
	soft := make([]float32, len(policy))
	var sum float64
	for _, p := range policy {
		sum += math.Pow(float64(p), 1/t)
	}
	for j, p := range policy {
		soft[j] = float32(math.Pow(float64(p), 1/t) / sum)
	}
	return soft
}

// validateAux reports what is wrong with a sample's optional targets.
func (s Sample) validateAux() error {
	switch {
	case (s.Reply == nil) != (s.ReplyLegal == nil) || len(s.Reply) != len(s.ReplyLegal):
		return fmt.Errorf("%d reply probabilities for %d reply actions", len(s.Reply), len(s.ReplyLegal))
	case s.Ownership != nil && len(s.Ownership) != env.NumSquares:
		return fmt.Errorf("%d ownership values: want %d", len(s.Ownership), env.NumSquares)
	case !(s.Score >= -1 && s.Score <= 1):
		return fmt.Errorf("score %v: want -1 to 1", s.Score)
	case !(s.Surprise >= 0 && s.Surprise <= math.MaxFloat32):
		return fmt.Errorf("surprise %v: want 0 or more", s.Surprise)
	}
	if s.Reply != nil {
		if len(s.Reply) == 0 {
			return fmt.Errorf("reply: no legal actions")
		}
		if err := checkPolicy(s.ReplyLegal, s.Reply); err != nil {
			return fmt.Errorf("reply: %w", err)
		}
	}
	for k, o := range s.Ownership {
		if !(o >= -1 && o <= 1) {
			return fmt.Errorf("ownership %v of square %d: want -1 to 1", o, k)
		}
	}
	return nil
}
