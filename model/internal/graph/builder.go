package graph

import (
	"sync"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// BuildMu serialises graph construction: gorgonia numbers nodes with a
// package-level counter that races when two goroutines build at once
// (the race detector reports it). Running built machines concurrently is safe.
var BuildMu sync.Mutex

// builder adds nodes to a graph and keeps the first error, so that the
// architecture reads as a sequence of layers; after an error every method
// returns nil without touching the graph.
type builder struct {
	g   *G.ExprGraph
	err error
}

// keep returns n, or records err and returns nil.
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

// relu is ReLU of x.
func (b *builder) relu(x *G.Node) *G.Node {
	if b.err != nil {
		return nil
	}
	return b.keep(G.Rectify(x))
}

// add is x + y.
func (b *builder) add(x, y *G.Node) *G.Node {
	if b.err != nil {
		return nil
	}
	return b.keep(G.Add(x, y))
}

// matmul is the matrix product of x and w.
func (b *builder) matmul(x, w *G.Node) *G.Node {
	if b.err != nil {
		return nil
	}
	return b.keep(G.Mul(x, w))
}

// reshape is x in shape.
func (b *builder) reshape(x *G.Node, shape ...int) *G.Node {
	if b.err != nil {
		return nil
	}
	return b.keep(G.Reshape(x, shape))
}

// tanh is tanh of x.
func (b *builder) tanh(x *G.Node) *G.Node {
	if b.err != nil {
		return nil
	}
	return b.keep(G.Tanh(x))
}
