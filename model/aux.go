package model

import (
	"fmt"
	"math"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/fused"
	G "gorgonia.org/gorgonia"
)

// The losses that only some trainings have: KataGo's auxiliary heads
// (the opponent's reply, ownership, score; see Config) and its soft
// policy target (TrainConfig.SoftPolicyWeight). The heads are gorgonia's
// nodes over the trunk's squares as rows (net.squares): a 1x1
// convolution is then one matrix product. They exist in training graphs
// only.

// auxShard is one training shard's inputs and loss nodes of the optional
// losses; each node is nil, and each slice too, when its loss is off. The
// soft target and the reply are policy losses: the fused graph's are
// fused.PolicyLossOps over compact targets, the stock graph's dense
// (a mask and a target a row, as its main policy loss).
type auxShard struct {
	stock       bool
	temperature float64 // the soft target's; 0 when it is off
	reply       bool
	// The fused graph's compact targets: the soft one in the order of the
	// main logits, the reply in the reply head's square-major order.
	softTargets, replyTargets fused.Targets
	// The stock graph's dense ones, (rows, NumActions): the soft target in
	// action order, the reply's mask and target square-major.
	soft, replyMask, replyDense []float32
	own, ownMask                []float32 // (rows*36, 1)
	score, scoreMask            []float32 // (rows, 1)

	softLoss, replyLoss, ownLoss, scoreLoss *G.Node
}

func newAuxShard(c Config, tc TrainConfig, rows int, stock bool) auxShard {
	a := auxShard{stock: stock, reply: c.ReplyHead}
	if tc.SoftPolicyWeight > 0 {
		a.temperature = tc.SoftPolicyTemperature
		if stock {
			a.soft = make([]float32, rows*env.NumActions)
		}
	}
	if c.ReplyHead && stock {
		a.replyMask = make([]float32, rows*env.NumActions)
		a.replyDense = make([]float32, rows*env.NumActions)
	}
	if c.OwnershipHead {
		a.own = make([]float32, rows*env.NumSquares)
		a.ownMask = make([]float32, rows*env.NumSquares)
	}
	if c.ScoreHead {
		a.score = make([]float32, rows)
		a.scoreMask = make([]float32, rows)
	}
	return a
}

// build adds the optional losses to the graph and returns cost with their
// weighted sum added. A head's loss is added even at weight 0, so that
// its learnables have a gradient (of 0).
// mask is the stock graph's dense mask of the main policy loss.
func (a *auxShard) build(b *builder, c Config, tc TrainConfig, fwd *net, mask *G.Node, cost *G.Node) *G.Node {
	stock := a.stock
	bs := fwd.batch
	weighted := func(loss *G.Node, w float64, name string) {
		k := G.NewConstant(float32(w), G.WithName(name))
		cost = b.add(cost, b.keep(G.HadamardProd(loss, k)))
	}
	if a.temperature > 0 {
		if stock {
			soft := b.input("soft_target", a.soft, bs, env.NumActions)
			a.softLoss = b.stockPolicyLoss(fwd.logits, mask, soft, bs)
		} else {
			a.softLoss = b.keep(G.Sum(b.apply(fused.NewPolicyLossOp(bs, &a.softTargets), fwd.logits)))
		}
		weighted(a.softLoss, tc.SoftPolicyWeight, "soft_policy_weight")
	}
	if !c.HasAux() || b.err != nil {
		return cost
	}
	sq := fwd.squares
	if stock {
		// (B, C, 6, 6) to a row per square.
		sq = b.reshape(b.keep(G.Transpose(fwd.trunk, 0, 2, 3, 1)), bs*env.NumSquares, c.Channels)
	}
	p := fwd.params[c.inferenceParams():]
	if c.ReplyHead {
		logits := b.reshape(b.bias(b.matmul(sq, p[0]), p[1]), bs, env.NumActions)
		if stock {
			rmask := b.input("reply_mask", a.replyMask, bs, env.NumActions)
			target := b.input("reply_target", a.replyDense, bs, env.NumActions)
			a.replyLoss = b.stockPolicyLoss(logits, rmask, target, bs)
		} else {
			a.replyLoss = b.keep(G.Sum(b.apply(fused.NewPolicyLossOp(bs, &a.replyTargets), logits)))
		}
		weighted(a.replyLoss, tc.ReplyWeight, "reply_weight")
		p = p[2:]
	}
	// maskedMSE is sum(mask * (x - target)^2) / n.
	maskedMSE := func(x *G.Node, target, mask []float32, rows int, name string) *G.Node {
		t := b.input(name, target, rows, 1)
		m := b.input(name+"_mask", mask, rows, 1)
		if b.err != nil {
			return nil
		}
		d := b.keep(G.Sub(x, t))
		se := b.keep(G.HadamardProd(b.keep(G.HadamardProd(d, d)), m))
		inv := G.NewConstant(float32(1/float64(rows)), G.WithName(name+"_scale"))
		return b.keep(G.HadamardProd(b.keep(G.Sum(se)), inv))
	}
	if c.OwnershipHead {
		own := b.tanh(b.bias(b.matmul(sq, p[0]), p[1]))
		a.ownLoss = maskedMSE(own, a.own, a.ownMask, bs*env.NumSquares, "ownership")
		weighted(a.ownLoss, tc.OwnershipWeight, "ownership_weight")
		p = p[2:]
	}
	if c.ScoreHead {
		plane := b.reshape(b.relu(b.bias(b.matmul(sq, p[0]), p[1])), bs, env.NumSquares)
		score := b.tanh(b.bias(b.matmul(plane, p[2]), p[3]))
		a.scoreLoss = maskedMSE(score, a.score, a.scoreMask, bs, "score")
		weighted(a.scoreLoss, tc.ScoreWeight, "score_weight")
	}
	return cost
}

// losses reads the last run's optional losses into l, each with scalar.
func (a *auxShard) losses(scalar func(*G.Node) (float64, error), l *Losses) error {
	for _, x := range []struct {
		node *G.Node
		dst  *float64
	}{{a.softLoss, &l.SoftPolicy}, {a.replyLoss, &l.Reply}, {a.ownLoss, &l.Ownership}, {a.scoreLoss, &l.Score}} {
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

// load writes part's optional targets into the inputs; main is the main
// policy loss's compact targets (the fused graph's), whose entries the
// soft target shares. A sample without a reply target gets one legal
// action of probability 1, whose loss and gradient are exactly 0; one
// without ownership or score a mask of 0.
func (a *auxShard) load(part []Sample, main *fused.Targets) {
	if a.temperature > 0 {
		if a.stock {
			clear(a.soft)
			for i, s := range part {
				row := a.soft[i*env.NumActions : (i+1)*env.NumActions]
				for j, p := range softened(s.Policy, a.temperature) {
					row[s.Legal[j]] = p
				}
			}
		} else {
			t := &a.softTargets
			t.Index, t.End, t.Prob = main.Index, main.End, t.Prob[:0]
			for _, s := range part {
				t.Prob = append(t.Prob, softened(s.Policy, a.temperature)...)
			}
		}
	}
	if a.reply && a.stock {
		for i := range a.replyMask {
			a.replyMask[i] = illegalLogit
		}
		clear(a.replyDense)
		for i, s := range part {
			mask, target := a.replyMask[i*env.NumActions:(i+1)*env.NumActions], a.replyDense[i*env.NumActions:(i+1)*env.NumActions]
			if s.Reply == nil {
				mask[0], target[0] = 0, 1
				continue
			}
			for j, act := range s.ReplyLegal {
				k := squareOrder.index(act)
				mask[k], target[k] = 0, s.Reply[j]
			}
		}
	} else if a.reply {
		t := &a.replyTargets
		t.Index, t.Prob, t.End = t.Index[:0], t.Prob[:0], t.End[:0]
		for i, s := range part {
			row := int32(i * env.NumActions)
			if s.Reply == nil {
				t.Index, t.Prob = append(t.Index, row), append(t.Prob, 1)
			}
			for j, act := range s.ReplyLegal {
				t.Index = append(t.Index, row+int32(squareOrder.index(act)))
				t.Prob = append(t.Prob, s.Reply[j])
			}
			t.End = append(t.End, len(t.Index))
		}
	}
	if a.own != nil {
		for i, s := range part {
			own, m := a.own[i*env.NumSquares:(i+1)*env.NumSquares], a.ownMask[i*env.NumSquares:(i+1)*env.NumSquares]
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
	if a.score != nil {
		for i, s := range part {
			a.score[i], a.scoreMask[i] = s.Score, 0
			if s.Final {
				a.scoreMask[i] = 1
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
