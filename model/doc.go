// Package model is the policy and value network: a residual convolutional
// network in gorgonia with batched inference for many concurrent searches,
// a training step with its own optimiser, and a versioned file format.
//
// # Architecture
//
// The input is an observation of env.NumPlanes planes of 6x6 (see
// env.EncodeObservation). A 3x3 convolution to Channels planes with a
// per-channel bias and ReLU feeds Blocks residual blocks, each
// conv3x3-bias-ReLU-conv3x3-bias plus the block's input, then ReLU.
//
//   - Policy head: a 1x1 convolution to 192 planes, one per (direction,
//     count) pair, flattened plane-major, which is exactly env's action
//     index order (direction*24 + count-1)*36 + from; plus a learned bias per
//     action. The probabilities are a softmax over the legal actions only,
//     so an illegal action gets exactly 0.
//   - Value head: a 1x1 convolution to ValuePlanes planes (bias, ReLU), a
//     fully connected layer of ValueHidden units (bias, ReLU) and one output
//     through tanh: the expected result for the side to move.
//   - Auxiliary heads (KataGo's; Config.ReplyHead, OwnershipHead,
//     ScoreHead, off by default) exist in a [Trainer]'s graph only, as
//     gorgonia's nodes over the trunk's output read as a row per square
//     (fused.UnpadOp), so a 1x1 convolution is one matrix product: the
//     opponent's reply (a plane per (direction, count), a bias per plane,
//     a cross-entropy against the next position's policy target), the
//     final owner of each square (one plane through tanh) and the final
//     material lead (one plane, ReLU, a fully connected layer, tanh), the
//     last two by mean squared error. Inference never computes them;
//     [Network.WithoutAux] drops them for players and other languages.
//
// There is no batch normalisation: with gorgonia it needs a separate
// evaluation mode, running statistics saved beside the weights, never a
// padded training batch, and it costs about a quarter of the training
// speed (measured on gorgonia's stock graph). A per-channel bias with
// Fixup-style initialisation (each residual branch's last convolution
// scaled down by sqrt(Blocks)) trains these shallow networks well and keeps
// padded inference rows independent. The fully convolutional policy head
// costs 36*192*Channels multiply-adds, against 6912 times the input size for
// a fully connected one.
//
// [DefaultConfig] is 3 blocks of 32 channels (4.9 MFLOP per position),
// chosen by measurement for self-play on two cores: a deeper or wider
// network costs more per evaluation than it gains in an hour of training
// (train/EXPERIMENTS.md#default-run-2026-12-04), and three blocks already
// give every square a view of the whole board (seven 3x3 convolutions).
// "deathstacks bench nn" measures any configuration; building with the
// openblas tag (see blas_openblas.go) runs gorgonia's own matrix products
// on cgo BLAS.
//
// # Inference
//
// gorgonia needs a graph compiled for each batch size, and a TapeMachine
// is not safe for concurrent use. An engine (one per goroutine) binds its
// graphs' inputs once and copies each batch into their backing arrays.
// The stock graph is compiled lazily for batch sizes 1, 2, 4, ... up to
// the engine's maximum, short batches zero-padded; the fused graph once,
// for the maximum, its ops computing only the rows a batch has. The
// graphs share one private copy of the weights, refreshed when the
// network's weights have changed.
//
// [Network.Evaluate] serialises its callers on one engine. A [Server]
// batches the requests of many concurrent searches: each worker goroutine
// collects requests until MaxBatch positions or an empty queue (after
// FlushDelay), runs them as one batch and answers each caller. Before it
// collects, a worker yields to the callers it has just answered: with a
// worker per core they would otherwise find no core to queue their next
// requests on, and two workers would run each request alone. The request
// of a lone caller (no other call in flight), such as a single search's,
// is split among the workers instead, so that one search uses every core
// (rows are computed alike in any batch: the split changes no value).
// An [Engine] is one engine for a caller that makes its own batches on
// one goroutine: self-play's lanes (package mcts/stepped's Drive) each
// run one, with no queue and no hand-over between goroutines. All three
// implement the search's Evaluator (Evaluate(obs, legal, priors, values)
// with priors compact over the legal actions) without this package
// importing mcts.
//
// # Speed
//
// Inference runs a fused graph, still a gorgonia graph of gorgonia Ops
// (package model/internal/fused): the stem and the residual tower are one
// Op (TrunkOp), the policy head's 1x1 convolution another (HeadOp), and
// the value head, its convolution and fully connected layers, a third
// (ValueOp). The engine
// runs these ops itself, in topological order in its own goroutine
// (fused.Run), not on a tape
// machine: a machine's RunAll hands every run to a new goroutine while
// the caller waits on a locked OS thread, two thread wake-ups per run that
// leave a core idle much of the time with a worker per core. The stock
// graph still runs on a TapeMachine (Reset before every run). The trunk's
// activations are kept channel-last with a zero border (B x 8 x 8 x C),
// so that a 3x3 convolution is an implicit matrix product read in place:
// no im2col, no transpose, and bias, residual add and ReLU are done as
// each output tile is stored. The policy head reads the trunk's output the
// same way, a board row of six squares per tile, and so writes its logits
// square-major; the softmax over the legal actions reads them in that
// order, and takes their exps 8 at a time in AVX2 (kernel.ExpShifted,
// within a unit in the last place of float64's exp). The stored weights
// keep their layout (and the file format its meaning); an engine repacks
// them for the kernels when it copies them. The numeric code that needs no gorgonia (the
// microkernel in AVX-512 or AVX2/FMA assembly or portable Go, Sgemm, the
// convolutions, the peak loop) is the internal package kernel; [Kernels]
// names the form in use. [Network.EvaluateStock] and [NewStockServer] run
// gorgonia's stock graph of the same weights; the tests check that both
// graphs agree at every batch size.
//
// The rest of gorgonia's matrix products (the stock graph's, the
// auxiliary heads') run on gonum's BLAS with the kernel package's Sgemm
// (installed with gorgonia.Use unless built with the openblas tag); the
// tests check that Sgemm is the only BLAS entry point the graphs reach,
// and that the fused graphs of a network without auxiliary heads reach
// none.
//
// Training runs the same fused ops, differentiable: in a Trainer's graph
// the trunk and head ops take the learnables as inputs (packed on every
// run), keep their activations, and their SymDiff adds gradient ops that
// run the backward pass on the same kernels, followed by ops that hand
// each learnable its section of the result. A convolution's input
// gradient is the transposed convolution, read in place like the forward
// one; its weights' gradient is one matrix product per layer over the
// board's pixels only, the pixels' 3x3 neighbourhoods transposed (im2col
// transposed: a row per tap and input channel, 288 rows of 32 channels, a
// whole number of the kernel's tiles) times the output gradient, in
// blocks of pixels whose output gradient, gathered in panels of 16
// channels with its bias's sums, stays in L1 (the transposes in blocks of
// 8x8, the gathers and the ReLUs' masks in assembly; the observations
// kept at a stride of 24 channels for the stem's 21 planes, so that all
// of them transpose in blocks of 8). The policy head is square-major in
// training too (as inference's), and its backward pass reads the gradient
// in place as a transposed 1x1 convolution; the value head's
// convolution is plane-major, both heads' weight gradients are products
// on the kernel with no transposed copy of the output gradient. The policy loss is one
// op too, with exp() and the gradient over the legal actions only (its
// check of every logit for infinities and NaNs in assembly), and it
// measures the policy's entropy from its own softmax; the value head's
// fully connected layers and the value loss are another
// (fused.ValueLossOp), forward on the kernel as inference's, backward on
// its Sgemm. A
// training graph runs as the inference graph does, in the calling
// goroutine (fused.NewTrainingRun), not on a tape machine: each op's Do
// in topological order, the few gorgonia nodes left (the losses' sums and
// weights, the sums of gradients, an auxiliary head's) writing into their
// last run's values; a step allocates a few hundred small objects. The
// tests check the gradients against gorgonia's stock graph
// ([NewStockTrainer]) and against central differences of a plain-Go
// reference, with both kernel forms. PeakGFLOPS measures the machine's
// FMA peak, which "deathstacks bench nn" compares the network's speed
// with: an evaluation at [Config.FLOPs], a training sample at
// [Config.TrainFLOPs] (forward, weights' and inputs' gradients). The
// microkernel takes about three quarters of a training step's CPU time
// and more of the server's in their profiles; moving a few planes costs
// more there than their arithmetic, which is why the value head's two
// planes are packed in AVX and, at inference, read in place square-major as the
// policy head's, and why its first fully connected layer keeps its weights
// packed once (kernel.Dense) rather than calling Sgemm, which packs both
// operands on every call. cmd/PERFORMANCE.md has the current speeds and
// the command that measures them.
//
// # Loss and training
//
// A [Trainer] compiles its own graph for its batch size, bound to the
// network's weight arrays. For a batch of [Sample] values (targets compact
// over the legal actions) the loss is
//
//	mean cross-entropy(target, softmax over legal actions of the logits)
//	+ ValueWeight * mean (value - result)^2
//	+ WeightDecay * sum of squared weights (biases excluded; AdamW instead
//	  multiplies those weights by 1 - lr*WeightDecay every step)
//
// plus, when on, SoftPolicyWeight times the cross-entropy of the same
// policy against target^(1/SoftPolicyTemperature) renormalised, and each
// auxiliary head's loss times its weight (a sample without that target
// adds nothing to it).
//
// The masked log-softmax shifts each row by its largest legal logit, and
// is the fused graph's own op (the stock graph builds it from primitive
// operations), because tensor's (Log)SoftMax takes the row maximum from
// the wrong element and action 0 is a real move. The optimiser, Adam, AdamW or
// SGD with momentum (the internal package optim) under a constant, step
// or cosine learning-rate schedule with linear warm-up, works on the
// weights' float32 arrays, so its state can be saved: gorgonia's solvers
// keep theirs unexported. A batch is split in two halves, each with a
// graph of its own, whose forward and backward passes run at once on two
// goroutines; their gradients are averaged, weighted by their samples
// (the split is the same on any machine). Everything after the graphs is
// one pass over each learnable (half of the learnables on each of two
// goroutines), a section of 1024 values at a time so that it stays in L1:
// the halves' mean gradient, the update with the L2 term's gradient
// (Adam in assembly, which also flushes subnormal results to zero), and
// the sum of the updated weights' squares, the next step's L2 term (a
// step after any other change of the weights sums them afresh). A step is
// deterministic: the same network, configuration and batches give the
// same weights bit for bit.
//
// # Files
//
// A network file (all integers little-endian) holds:
//
//	magic "DSTKNNET", format version (uint32, [FormatVersion])
//	env.EncodingVersion, env.NumPlanes, env.NumActions (uint32 each)
//	Config: blocks, channels, value_planes, value_hidden (uint32 each)
//	  and, in format version 2 only, the auxiliary heads (uint32 bits:
//	  reply 1, ownership 2, score 4; their tensors follow the others)
//	training steps (int64)
//	metadata: count, then (key, value) strings sorted by key
//	tensors: count, then per tensor its shape and float32 values
//	optimiser: 0 none, 1 Adam, 2 SGD; then its update count (int64) and
//	  its moment arrays in tensor order
//	CRC-32C of all the bytes before it
//
// A network without auxiliary heads is written as version 1, which every
// earlier program reads; one with them as version 2. Both are read.
// Reading checks each part before the next and returns an error, never a
// network, for another magic ([ErrNotNetwork]), format version
// ([ErrFormatVersion]), encoding ([ErrEncoding]), tensor shapes that do not
// fit the stored architecture ([ErrArchitecture]), a bad checksum or value
// ([ErrCorrupt]) or early end ([ErrTruncated]). [Network.CheckConfig] tells
// a resumed run whether a loaded network has the configured architecture.
// Save writes atomically (a temporary file in the same directory, synced,
// renamed, directory synced); WriteTo and ReadNetwork/ReadTrainer read and
// write exactly one section, so a network can be embedded in a larger file.
//
// [FromWeights] builds a network from the tensors in this order,
// concatenated, as other languages hand them over (PyTorch, through the C
// library).
//
// [Network.Save] omits the optimiser state (an exported player);
// [Trainer.WriteTo] includes it. [ReadTrainer] restores the weights, step count
// and optimiser moments, so training continues exactly as if it had not
// stopped; from a file without optimiser state it starts a fresh optimiser
// on the loaded weights (the schedule still counts the loaded steps). The
// training settings themselves come from the configuration, not the file.
//
// # Concurrency
//
// [Network], [Server] and [Network.Evaluate] are safe for concurrent use.
// A [Trainer] belongs to one goroutine, and a network has at most one
// trainer at a time, but its steps may run while servers evaluate: a step writes the weights under the network's lock and
// engines copy them under the same lock before their next run, so every
// evaluation uses the weights of one step. Graph construction is
// serialised by a package-level mutex because gorgonia numbers nodes with
// an unsynchronised global counter.
package model
