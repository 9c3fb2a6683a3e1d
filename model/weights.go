package model

import "slices"

// Tensor is one learnable tensor of a network: its name, its shape and
// its float32 values in row-major order.
type Tensor struct {
	// Name is the parameter's name: stem.w, stem.b, block<i>.w1, .b1, .w2,
	// .b2, policy.w, policy.b, value.conv.w, value.conv.b, value.fc1.w,
	// value.fc1.b, value.fc2.w, value.fc2.b.
	Name string
	// Shape is as the file stores it: a convolution's weights (out, in,
	// k, k), a per-channel bias (1, C, 1, 1), policy.b (1, NumActions), a
	// fully connected layer's weights (in, out) and its bias (1, out).
	Shape []int
	Data  []float32
}

// Weights returns a copy of the network's learnables in the order of the
// network file (see "Files" in the package documentation), for programs
// that rebuild the network elsewhere, such as an ONNX export. The copy
// is consistent: it holds the weights of one training step.
func (n *Network) Weights() []Tensor {
	specs := n.cfg.specs()
	n.mu.RLock()
	defer n.mu.RUnlock()
	out := make([]Tensor, len(specs))
	for i, s := range specs {
		out[i] = Tensor{Name: s.Name, Shape: slices.Clone(s.Shape), Data: slices.Clone(n.weights[i])}
	}
	return out
}
