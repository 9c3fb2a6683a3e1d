package graph

import (
	"fmt"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/fused"
	G "gorgonia.org/gorgonia"
)

// Net is the network's graph for one batch size: its input, learnables and
// outputs. The learnables are bound to tensors over the caller's slices, so
// writing those slices changes the weights the next run uses.
type Net struct {
	G      *G.ExprGraph
	batch  int
	x      *G.Node   // (B, NumPlanes, 6, 6)
	Params []*G.Node // in Arch.Specs order; nil in the fused inference graph
	logits *G.Node   // (B, NumActions)
	value  *G.Node   // (B, 1), after tanh; nil in the fused training graph
	// valuePlanes is the fused training graph's value convolution (B,
	// ValuePlanes*36), which the trainer's fused.ValueLossOp reads with
	// the fully connected layers' learnables; nil in the other graphs.
	valuePlanes *G.Node
	// trunk is the trunk's output: (B, Channels, 6, 6) in the stock graph,
	// the fused TrunkOp's padded layout in the fused one. squares is the
	// same as a matrix (B*36, Channels), a row per square, square-major:
	// the input of the auxiliary heads, in training graphs of networks
	// that have them only (nil otherwise).
	trunk, squares *G.Node
	// The outputs are read through copies made during the run: the tape
	// machine reuses the memory of a node whose value no later operation
	// needs, so a node's Value after the run can hold another node's. The
	// fused inference graph's are its ops' own buffers.
	logitsOut, valueOut G.Value
	Order               LogitOrder // of the logits
}

// Outputs returns the logits and values of the last run, in the order
// n.Order.
func (n *Net) Outputs() (logits, values []float32, err error) {
	if n.logitsOut == nil || n.valueOut == nil {
		return nil, nil, fmt.Errorf("network outputs were not read")
	}
	logits, ok1 := n.logitsOut.Data().([]float32)
	values, ok2 := n.valueOut.Data().([]float32)
	if !ok1 || !ok2 {
		return nil, nil, fmt.Errorf("network outputs are not float32")
	}
	return logits, values, nil
}

// finish adds the value head's fully connected layers over v (B,
// ValuePlanes*36) with learnables fc (value.fc1.w, .fc1.b, .fc2.w, .fc2.b),
// setting n.value, and the copies of n's outputs.
func (b *builder) finish(n *Net, v *G.Node, fc []*G.Node) {
	v = b.relu(b.bias(b.matmul(v, fc[0]), fc[1]))
	n.value = b.tanh(b.bias(b.matmul(v, fc[2]), fc[3]))
	if b.err == nil {
		G.Read(n.logits, &n.logitsOut)
		G.Read(n.value, &n.valueOut)
	}
}

// NewFastNet builds the fused graph of cfg for batch positions with input
// backing xs. For inference (packed not nil) it is fused ops only, reading
// packed, the engine's copy of the weights (in Arch.Specs order): the
// trunk, the policy head and the value head; the graph has no params, and
// its outputs are the ops' own buffers, rewritten by each run (see
// fused.Run). For training (packed nil) every learnable is an input node
// over weights, as in NewNet, the graph is differentiable and ends at the
// value head's convolution (n.valuePlanes): the trainer adds the fully
// connected layers with the value loss (fused.ValueLossOp), and sets
// n.valueOut. Either way its logits are square-major (SquareOrder). The
// caller must hold buildMu.
func NewFastNet(g *G.ExprGraph, cfg Arch, packed *fused.Net, batch int, xs []float32, weights [][]float32) (*Net, error) {
	train := packed == nil
	if train {
		packed = fused.NewNet(cfg.Dims(), true)
	}
	b := &builder{g: g}
	n := &Net{G: g, batch: batch}
	specs := cfg.Specs()
	p := make([]*G.Node, len(specs))
	if train {
		for i, s := range specs {
			p[i] = b.input(s.Name, weights[i], s.Shape...)
		}
	}
	n.x = b.input("x", xs, batch, env.NumPlanes, BoardSide, BoardSide)
	tp := fused.TrunkParams(cfg.Blocks)
	var pol, val []*G.Node // the heads' inputs after the trunk's output
	if train {
		n.Params = p
		pol, val = p[tp:tp+2], p[tp+2:tp+4]
	}
	trunkIn := []*G.Node{n.x}
	if train {
		trunkIn = append(trunkIn, p[:tp]...)
	}
	h := b.apply(fused.NewTrunkOp(packed, batch, train), trunkIn...)
	n.trunk = h
	if train && cfg.HasAux() {
		n.squares = b.apply(fused.NewUnpadOp(packed, batch), h)
	}
	polOp := fused.NewHeadOp(packed, batch, false, train)
	n.logits = b.apply(polOp, append([]*G.Node{h}, pol...)...)
	if train {
		n.valuePlanes = b.apply(fused.NewHeadOp(packed, batch, true, train), append([]*G.Node{h}, val...)...)
		// The policy op's own buffer: no gorgonia op reads the logits, so
		// the machine never writes over it.
		n.logitsOut, n.Order = polOp.Out(), SquareOrder
	} else {
		valOp := fused.NewValueOp(packed, batch)
		n.value = b.apply(valOp, h)
		n.logitsOut, n.valueOut, n.Order = polOp.Out(), valOp.Out(), SquareOrder
	}
	if b.err != nil {
		return nil, fmt.Errorf("build fused %v network for batch %d: %w", cfg, batch, b.err)
	}
	return n, nil
}

// NewNet builds the forward graph of cfg for batch positions with input
// backing xs (batch*ObservationSize values) and learnables over weights.
// The caller must hold BuildMu.
func NewNet(g *G.ExprGraph, cfg Arch, batch int, xs []float32, weights [][]float32) (*Net, error) {
	b := &builder{g: g}
	n := &Net{G: g, batch: batch}
	specs := cfg.Specs()
	n.Params = make([]*G.Node, len(specs))
	for i, s := range specs {
		n.Params[i] = b.input(s.Name, weights[i], s.Shape...)
	}
	p := n.Params
	n.x = b.input("x", xs, batch, env.NumPlanes, BoardSide, BoardSide)
	h := b.relu(b.bias(b.conv(n.x, p[0]), p[1]))
	p = p[2:]
	for range cfg.Blocks {
		r := b.relu(b.bias(b.conv(h, p[0]), p[1]))
		r = b.bias(b.conv(r, p[2]), p[3])
		h = b.relu(b.add(h, r))
		p = p[4:]
	}
	n.trunk = h
	// Policy: a 1x1 convolution to one plane per (direction, count), read
	// plane-major, is the action index order; plus a bias per action.
	pol := b.reshape(b.conv(h, p[0]), batch, env.NumActions)
	n.logits = b.bias(pol, p[1])
	v := b.relu(b.bias(b.conv(h, p[2]), p[3]))
	b.finish(n, b.reshape(v, batch, cfg.ValuePlanes*env.NumSquares), p[4:8])
	if b.err != nil {
		return nil, fmt.Errorf("build %v network for batch %d: %w", cfg, batch, b.err)
	}
	return n, nil
}
