package model

import (
	"fmt"
	"sync"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/fused"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// buildMu serialises graph construction: gorgonia numbers nodes with a
// package-level counter that races when two goroutines build at once
// (the race detector reports it). Running built machines concurrently is safe.
var buildMu sync.Mutex

// builder adds nodes to a graph and keeps the first error, so that the
// architecture reads as a sequence of layers; after an error every method
// returns nil without touching the graph.
type builder struct {
	g   *G.ExprGraph
	err error
}

func (b *builder) keep(n *G.Node, err error) *G.Node {
	if err != nil {
		b.err = err
		return nil
	}
	return n
}

// input adds a float32 input node of the given shape bound to a tensor over
// backing, which the caller keeps and fills before each run.
func (b *builder) input(name string, backing []float32, shape ...int) *G.Node {
	if b.err != nil {
		return nil
	}
	t := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(backing))
	return G.NewTensor(b.g, tensor.Float32, len(shape), G.WithShape(shape...), G.WithName(name), G.WithValue(t))
}

// conv convolves x with the square filter w, keeping the 6x6 size.
func (b *builder) conv(x, w *G.Node) *G.Node {
	if b.err != nil {
		return nil
	}
	k := w.Shape()[2]
	return b.keep(G.Conv2d(x, w, tensor.Shape{k, k}, []int{k / 2, k / 2}, []int{1, 1}, []int{1, 1}))
}

// bias adds a per-channel bias of shape (1,C,1,1) to x of shape (B,C,H,W),
// or a per-column bias of shape (1,N) to x of shape (B,N).
func (b *builder) bias(x, bias *G.Node) *G.Node {
	if b.err != nil {
		return nil
	}
	pattern := []byte{0}
	if bias.Dims() == 4 {
		pattern = []byte{0, 2, 3}
	}
	return b.keep(G.BroadcastAdd(x, bias, nil, pattern))
}

// apply adds a node running op on its inputs.
func (b *builder) apply(op G.Op, inputs ...*G.Node) *G.Node {
	if b.err != nil {
		return nil
	}
	return b.keep(G.ApplyOp(op, inputs...))
}

func (b *builder) relu(x *G.Node) *G.Node {
	if b.err != nil {
		return nil
	}
	return b.keep(G.Rectify(x))
}

func (b *builder) add(x, y *G.Node) *G.Node {
	if b.err != nil {
		return nil
	}
	return b.keep(G.Add(x, y))
}

func (b *builder) matmul(x, w *G.Node) *G.Node {
	if b.err != nil {
		return nil
	}
	return b.keep(G.Mul(x, w))
}

func (b *builder) reshape(x *G.Node, shape ...int) *G.Node {
	if b.err != nil {
		return nil
	}
	return b.keep(G.Reshape(x, shape))
}

func (b *builder) tanh(x *G.Node) *G.Node {
	if b.err != nil {
		return nil
	}
	return b.keep(G.Tanh(x))
}

// net is the network's graph for one batch size: its input, learnables and
// outputs. The learnables are bound to tensors over the caller's slices, so
// writing those slices changes the weights the next run uses.
type net struct {
	g      *G.ExprGraph
	batch  int
	x      *G.Node   // (B, NumPlanes, 6, 6)
	params []*G.Node // in Config.specs order; nil in the fused inference graph
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
	order               logitOrder // of logits and logitsOut
}

// outputs returns the logits and values of the last run.
func (n *net) outputs() (batchOutput, error) {
	if n.logitsOut == nil || n.valueOut == nil {
		return batchOutput{}, fmt.Errorf("network outputs were not read")
	}
	logits, ok1 := n.logitsOut.Data().([]float32)
	values, ok2 := n.valueOut.Data().([]float32)
	if !ok1 || !ok2 {
		return batchOutput{}, fmt.Errorf("network outputs are not float32")
	}
	return batchOutput{logits: logits, values: values, order: n.order}, nil
}

// finish adds the value head's fully connected layers over v (B,
// ValuePlanes*36) with learnables fc (value.fc1.w, .fc1.b, .fc2.w, .fc2.b),
// setting n.value, and the copies of n's outputs.
func (b *builder) finish(n *net, v *G.Node, fc []*G.Node) {
	v = b.relu(b.bias(b.matmul(v, fc[0]), fc[1]))
	n.value = b.tanh(b.bias(b.matmul(v, fc[2]), fc[3]))
	if b.err == nil {
		G.Read(n.logits, &n.logitsOut)
		G.Read(n.value, &n.valueOut)
	}
}

// newFastNet builds the fused graph of cfg for batch positions with input
// backing xs. For inference (packed not nil) it is fused ops only, reading
// packed, the engine's copy of the weights (in Config.specs order): the
// trunk, the policy head and the value head; the graph has no params, and
// its outputs are the ops' own buffers, rewritten by each run (see
// fused.Run). For training (packed nil) every learnable is an input node
// over weights, as in newNet, the graph is differentiable and ends at the
// value head's convolution (n.valuePlanes): the trainer adds the fully
// connected layers with the value loss (fused.ValueLossOp), and sets
// n.valueOut. Either way its logits are square-major (squareOrder). The
// caller must hold buildMu.
func newFastNet(g *G.ExprGraph, cfg Config, packed *fused.Net, batch int, xs []float32, weights [][]float32) (*net, error) {
	train := packed == nil
	if train {
		packed = fused.NewNet(cfg.dims(), true)
	}
	b := &builder{g: g}
	n := &net{g: g, batch: batch}
	specs := cfg.specs()
	p := make([]*G.Node, len(specs))
	if train {
		for i, s := range specs {
			p[i] = b.input(s.name, weights[i], s.shape...)
		}
	}
	n.x = b.input("x", xs, batch, env.NumPlanes, boardSide, boardSide)
	tp := fused.TrunkParams(cfg.Blocks)
	var pol, val []*G.Node // the heads' inputs after the trunk's output
	if train {
		n.params = p
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
		n.logitsOut, n.order = polOp.Out(), squareOrder
	} else {
		valOp := fused.NewValueOp(packed, batch)
		n.value = b.apply(valOp, h)
		n.logitsOut, n.valueOut, n.order = polOp.Out(), valOp.Out(), squareOrder
	}
	if b.err != nil {
		return nil, fmt.Errorf("build fused %v network for batch %d: %w", cfg, batch, b.err)
	}
	return n, nil
}

// newNet builds the forward graph of cfg for batch positions with input
// backing xs (batch*ObservationSize values) and learnables over weights.
// The caller must hold buildMu.
func newNet(g *G.ExprGraph, cfg Config, batch int, xs []float32, weights [][]float32) (*net, error) {
	b := &builder{g: g}
	n := &net{g: g, batch: batch}
	specs := cfg.specs()
	n.params = make([]*G.Node, len(specs))
	for i, s := range specs {
		n.params[i] = b.input(s.name, weights[i], s.shape...)
	}
	p := n.params
	n.x = b.input("x", xs, batch, env.NumPlanes, boardSide, boardSide)
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
