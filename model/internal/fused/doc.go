// Package fused is the model package's fused network as gorgonia Ops:
// the stem and residual tower as one Op, each head's 1x1 convolution
// another, the value head's fully connected layers a third (at inference
// with its convolution, in training with the value loss), and the policy
// loss with its gradient a fourth, all over the kernels of
// model/internal/kernel; and Run, which runs a graph of these ops (an
// inference graph, or a training graph with its gradients) in topological
// order in the calling goroutine instead of on a tape machine. It knows a
// network only by its Dims, not the model package.
package fused
