package graph

import (
	"fmt"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/fused"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// IllegalLogit is added to the logits of illegal actions inside the loss so
// that exp() makes them exactly 0 after the shift by the row's largest legal
// logit.
const IllegalLogit = -1e9

// TrainShard is the training graph of one part of a batch: Rows samples,
// starting at sample First.
type TrainShard struct {
	First, Rows int
	// The stock graph runs on a tape machine (VM), whose dual values of
	// the learnables accumulate the gradients; the fused one in the
	// calling goroutine (Run), the gradients the values of Grads.
	VM     G.VM
	Run    *fused.Run
	Grads  G.Nodes
	Fwd    *Net
	Xs     []float32 // (rows, planes, 6, 6)
	Result []float32 // (rows, 1)
	// The policy targets: the fused graph's compact (Targets), the stock
	// graph's dense (NegMask: 0 legal, IllegalLogit illegal; Target), all
	// in the order of the graph's logits.
	Targets         fused.Targets
	NegMask, Target []float32 // (rows, NumActions)
	Stock           bool
	PolLoss         *G.Node
	ValLoss         *G.Node
	// PolOp is the fused graph's policy loss, which measures the
	// policy's entropy too; nil in the stock graph.
	PolOp *fused.PolicyLossOp
	// The optional losses' inputs and nodes, nil when off (see AuxShard).
	Aux AuxShard
}

// LossWeights are the weights of a training loss's parts in its total
// (model.TrainConfig's), and the soft policy target's temperature.
type LossWeights struct {
	Value, Reply, Ownership, Score, SoftPolicy, SoftPolicyTemperature float64
}

// NewTrainShard compiles the training graph of rows samples of a batch,
// starting at sample first, of a network of architecture a: its
// learnables are bound to weights, the network's own arrays, so that an
// update in place changes the weights its next run sees. stock builds it
// from gorgonia's primitives instead of the fused ops.
func NewTrainShard(a Arch, w LossWeights, first, rows int, weights [][]float32, stock bool) (*TrainShard, error) {
	sh := &TrainShard{
		First:  first,
		Rows:   rows,
		Xs:     make([]float32, rows*env.ObservationSize),
		Result: make([]float32, rows),
		Stock:  stock,
	}
	if stock {
		sh.NegMask = make([]float32, rows*env.NumActions)
		sh.Target = make([]float32, rows*env.NumActions)
	}
	sh.Aux = newAuxShard(a, w, rows, stock)
	if err := sh.build(a, w, weights); err != nil {
		return nil, err
	}
	return sh, nil
}

// build compiles the shard's training graph: the forward pass, the loss
// and its gradients. The fused graph's policy loss is one op
// (fused.PolicyLossOp); the stock graph's is built from gorgonia's
// primitives (stockPolicyLoss).
func (sh *TrainShard) build(a Arch, w LossWeights, weights [][]float32) error {
	BuildMu.Lock()
	defer BuildMu.Unlock()
	bs := sh.Rows
	g := G.NewGraph()
	// The learnables are bound to the network's own arrays: the optimiser
	// updates them in place, and the next run sees the new weights.
	var fwd *Net
	var err error
	if sh.Stock {
		fwd, err = NewNet(g, a, bs, sh.Xs, weights)
	} else {
		fwd, err = NewFastNet(g, a, nil, bs, sh.Xs, weights)
	}
	if err != nil {
		return err
	}
	b := &builder{g: g}
	var negMask *G.Node
	if sh.Stock {
		negMask = b.input("mask", sh.NegMask, bs, env.NumActions)
		target := b.input("target", sh.Target, bs, env.NumActions)
		sh.PolLoss = b.stockPolicyLoss(fwd.logits, negMask, target, bs)
		result := b.input("result", sh.Result, bs, 1)
		if b.err != nil {
			return b.err
		}
		diff := b.keep(G.Sub(fwd.value, result))
		sh.ValLoss = b.keep(G.Mean(b.keep(G.Square(diff))))
	} else {
		sh.PolOp = fused.NewPolicyLossOp(bs, &sh.Targets)
		sh.PolLoss = b.keep(G.Sum(b.apply(sh.PolOp, fwd.logits)))
		vl := fused.NewValueLossOp(a.Dims(), bs, sh.Result)
		tp := fused.TrunkParams(a.Blocks)
		sh.ValLoss = b.keep(G.Sum(b.apply(vl, append([]*G.Node{fwd.valuePlanes}, fwd.Params[tp+4:tp+8]...)...)))
		fwd.valueOut = vl.Values()
	}
	if b.err != nil {
		return b.err
	}
	vw := G.NewConstant(float32(w.Value), G.WithName("value_weight"))
	cost := b.add(sh.PolLoss, b.keep(G.HadamardProd(sh.ValLoss, vw)))
	cost = sh.Aux.build(b, a, w, fwd, negMask, cost)
	if b.err != nil {
		return b.err
	}
	grads, err := G.Grad(cost, fwd.Params...)
	if err != nil {
		return fmt.Errorf("gradients: %w", err)
	}
	sh.Fwd = fwd
	if sh.Stock {
		sh.VM = G.NewTapeMachine(g, G.BindDualValues(fwd.Params...))
		return nil
	}
	sh.Grads = grads
	sh.Run, err = fused.NewTrainingRun(g)
	return err
}

// Scalar is the value of n, a float32 scalar, after the shard's last run.
func (sh *TrainShard) Scalar(n *G.Node) (float64, error) {
	val := n.Value()
	if sh.Run != nil {
		val = sh.Run.Value(n)
	}
	var v float32
	ok := false
	switch x := val.(type) {
	case nil:
	case tensor.Tensor:
		if d, isF := x.Data().([]float32); isF && len(d) == 1 {
			v, ok = d[0], true
		}
	default:
		v, ok = x.Data().(float32)
	}
	if !ok {
		return 0, fmt.Errorf("training step: %s is not a float32 scalar", n.Name())
	}
	return float64(v), nil
}

// stockPolicyLoss is the policy loss from gorgonia's primitives: a
// cross-entropy against a log-softmax over the legal actions, because
// gorgonia's (Log)SoftMax takes each row's maximum from the wrong
// element. With z the logits, m the mask (0 legal, -1e9 illegal), t the
// target and c = max(z+m) the largest legal logit, a row's loss is
//
//	-sum(t*z) + c + log(sum(exp(z+m-c)))
//
// where every exp() argument is <= 0 (so no overflow), the largest is 0
// (so the log's argument is >= 1) and illegal actions contribute exactly
// 0. The gradient through c cancels analytically.
func (b *builder) stockPolicyLoss(z, negMask, target *G.Node, bs int) *G.Node {
	zm := b.add(z, negMask)
	if b.err != nil {
		return nil
	}
	// c feeds the log-sum-exp directly, not through a second reshape of
	// its reshaped form: that chain gives wrong gradients.
	c := b.keep(G.Max(zm, 1))
	shifted := b.keep(G.BroadcastSub(zm, b.reshape(c, bs, 1), nil, []byte{1}))
	sumExp := b.keep(G.Sum(b.keep(G.Exp(shifted)), 1))
	lse := b.add(b.keep(G.Log(sumExp)), c)
	dot := b.keep(G.Sum(b.keep(G.HadamardProd(target, z)), 1))
	return b.keep(G.Mean(b.keep(G.Sub(lse, dot))))
}

// The losses that only some trainings have: KataGo's auxiliary heads
// (the opponent's reply, ownership, score; see Config) and its soft
// policy target (model.TrainConfig.SoftPolicyWeight). The heads are gorgonia's
// nodes over the trunk's squares as rows (Net.Squares): a 1x1
// convolution is then one matrix product. They exist in training graphs
// only.

// AuxShard is one training shard's inputs and loss nodes of the optional
// losses; each node is nil, and each slice too, when its loss is off. The
// soft target and the reply are policy losses: the fused graph's are
// fused.PolicyLossOps over compact targets, the stock graph's dense
// (a mask and a target a row, as its main policy loss).
type AuxShard struct {
	Stock       bool
	Temperature float64 // the soft target's; 0 when it is off
	Reply       bool
	// The fused graph's compact targets: the soft one in the order of the
	// main logits, the reply in the reply head's square-major order.
	SoftTargets, ReplyTargets fused.Targets
	// The stock graph's dense ones, (rows, NumActions): the soft target in
	// action order, the reply's mask and target square-major.
	Soft, ReplyMask, ReplyDense []float32
	Own, OwnMask                []float32 // (rows*36, 1)
	Score, ScoreMask            []float32 // (rows, 1)

	SoftLoss, ReplyLoss, OwnLoss, ScoreLoss *G.Node
}

// newAuxShard returns the inputs of the optional losses of a shard of
// rows samples.
func newAuxShard(c Arch, w LossWeights, rows int, stock bool) AuxShard {
	a := AuxShard{Stock: stock, Reply: c.ReplyHead}
	if w.SoftPolicy > 0 {
		a.Temperature = w.SoftPolicyTemperature
		if stock {
			a.Soft = make([]float32, rows*env.NumActions)
		}
	}
	if c.ReplyHead && stock {
		a.ReplyMask = make([]float32, rows*env.NumActions)
		a.ReplyDense = make([]float32, rows*env.NumActions)
	}
	if c.OwnershipHead {
		a.Own = make([]float32, rows*env.NumSquares)
		a.OwnMask = make([]float32, rows*env.NumSquares)
	}
	if c.ScoreHead {
		a.Score = make([]float32, rows)
		a.ScoreMask = make([]float32, rows)
	}
	return a
}

// build adds the optional losses to the graph and returns cost with their
// weighted sum added. A head's loss is added even at weight 0, so that
// its learnables have a gradient (of 0).
// mask is the stock graph's dense mask of the main policy loss.
func (a *AuxShard) build(b *builder, c Arch, w LossWeights, fwd *Net, mask *G.Node, cost *G.Node) *G.Node {
	stock := a.Stock
	bs := fwd.batch
	weighted := func(loss *G.Node, weight float64, name string) {
		k := G.NewConstant(float32(weight), G.WithName(name))
		cost = b.add(cost, b.keep(G.HadamardProd(loss, k)))
	}
	if a.Temperature > 0 {
		if stock {
			soft := b.input("soft_target", a.Soft, bs, env.NumActions)
			a.SoftLoss = b.stockPolicyLoss(fwd.logits, mask, soft, bs)
		} else {
			a.SoftLoss = b.keep(G.Sum(b.apply(fused.NewPolicyLossOp(bs, &a.SoftTargets), fwd.logits)))
		}
		weighted(a.SoftLoss, w.SoftPolicy, "soft_policy_weight")
	}
	if !c.HasAux() || b.err != nil {
		return cost
	}
	sq := fwd.squares
	if stock {
		// (B, C, 6, 6) to a row per square.
		sq = b.reshape(b.keep(G.Transpose(fwd.trunk, 0, 2, 3, 1)), bs*env.NumSquares, c.Channels)
	}
	p := fwd.Params[c.InferenceParams():]
	if c.ReplyHead {
		logits := b.reshape(b.bias(b.matmul(sq, p[0]), p[1]), bs, env.NumActions)
		if stock {
			rmask := b.input("reply_mask", a.ReplyMask, bs, env.NumActions)
			target := b.input("reply_target", a.ReplyDense, bs, env.NumActions)
			a.ReplyLoss = b.stockPolicyLoss(logits, rmask, target, bs)
		} else {
			a.ReplyLoss = b.keep(G.Sum(b.apply(fused.NewPolicyLossOp(bs, &a.ReplyTargets), logits)))
		}
		weighted(a.ReplyLoss, w.Reply, "reply_weight")
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
		a.OwnLoss = maskedMSE(own, a.Own, a.OwnMask, bs*env.NumSquares, "ownership")
		weighted(a.OwnLoss, w.Ownership, "ownership_weight")
		p = p[2:]
	}
	if c.ScoreHead {
		plane := b.reshape(b.relu(b.bias(b.matmul(sq, p[0]), p[1])), bs, env.NumSquares)
		score := b.tanh(b.bias(b.matmul(plane, p[2]), p[3]))
		a.ScoreLoss = maskedMSE(score, a.Score, a.ScoreMask, bs, "score")
		weighted(a.ScoreLoss, w.Score, "score_weight")
	}
	return cost
}
