// Package graph builds the network's gorgonia graphs for package model:
// the forward pass of an architecture ([Arch], its learnables' [Spec]s),
// fused ([NewFastNet]) or from gorgonia's primitives ([NewNet]); the
// layout of its logits ([LogitOrder]) and the softmax over the legal
// actions; and a training shard's graph, with its losses and gradients
// ([NewTrainShard]). The graphs read the weights from arrays the caller
// owns and binds.
package graph
