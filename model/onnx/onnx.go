// Package onnx writes a network of package model as a standard ONNX model,
// for runtimes other than this project's (onnxruntime, TensorRT, a
// browser, ...).
//
// The model is opset 13 and IR version 7, its protobuf written by the
// types of github.com/advancedclimatesystems/gonnx (generated from
// onnx.proto) with google.golang.org/protobuf. Its graph is model's
// architecture (see the model package documentation) in standard
// operators that gonnx's runtime runs too: the trunk's 3x3 convolutions
// are Conv nodes, the heads' 1x1 convolutions MatMuls over the 36 squares
// (gonnx 1.1.0's Conv fails on a 1x1 kernel) and the value head's layers
// MatMul and Add (its Gemm cannot run in float64). Every batch dimension is
// named "batch" and dynamic:
//
//	inputs   observation  float32 (batch, 21, 6, 6)  env.EncodeObservation's planes
//	         action_mask  uint8   (batch, 6912)      1 for a legal action, 0 otherwise
//	outputs  logits       float32 (batch, 6912)      the policy logits of the legal
//	                                                 actions, MaskedLogit elsewhere
//	         value        float32 (batch)            in [-1, 1], for the side to move
//
// A softmax of a row of logits is model's policy (Network.Evaluate's
// priors): the probabilities over the legal actions, exactly 0 for the
// others. With every action legal, a log-softmax of it is the C library's
// predict (deathstacks.Network.predict from Python), which floors it at
// -87. The mask is uint8, not bool, because the graph masks by arithmetic
// (gonnx has no Where and casts no bool): logits*mask + (mask-1)*1e9 keeps
// a legal logit exactly. Its values must be 0 or 1; the Python package's
// int8 masks convert with mask.view(np.uint8).
//
// The model's metadata_props say what the model is and how it was made:
// see [Model].
package onnx

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	pb "github.com/advancedclimatesystems/gonnx/onnx"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/model/codec"
	"google.golang.org/protobuf/proto"
)

// irVersion is the ONNX IR version of the model: 7, that of opset 13.
const irVersion = 7

// The model's interface: its opset and the names of its inputs and
// outputs.
const (
	Opset = 13

	InputObservation = "observation"
	InputActionMask  = "action_mask"
	OutputLogits     = "logits"
	OutputValue      = "value"
)

// MaskedLogit is the logit of every action the mask forbids: low enough
// that a float32 softmax gives it exactly 0.
const MaskedLogit = -1e9

// ErrReservedMeta: a further metadata entry has a key the model writes
// itself.
var ErrReservedMeta = errors.New("the key is one the model writes itself")

// Provenance is how a model was made, recorded in its metadata.
type Provenance struct {
	// Command is the command line that made it.
	Command string
	// Source names the network: a file, or the built-in player.
	Source string
	// Date is when it was made.
	Date time.Time
	// Meta holds further metadata entries, such as export's --meta; a
	// key of the model's own is refused.
	Meta map[string]string
}

// Metadata keys of every exported model; the network's own metadata
// follows as "network.KEY".
const (
	MetaEncodingVersion = "encoding_version"
	MetaObservation     = "observation"
	MetaActionLayout    = "action_layout"
	MetaOutputs         = "outputs"
	MetaArchitecture    = "architecture"
	MetaTrainingSteps   = "training_steps"
	MetaCommand         = "export_command"
	MetaSource          = "source"
	MetaDate            = "export_date"
	metaNetworkPrefix   = "network."
)

// Model returns net as an ONNX model (see the package documentation),
// with how in its metadata_props beside env's encoding version, the
// observation and action layouts, the outputs' meaning, the architecture,
// the training steps and the network's own metadata.
func Model(net *model.Network, how Provenance) (*pb.ModelProto, error) {
	// The auxiliary heads only training computes are left out.
	net = net.WithoutAux()
	g, err := graph(net.Config(), net.Weights())
	if err != nil {
		return nil, fmt.Errorf("onnx model of %v network: %w", net.Config(), err)
	}
	meta := map[string]string{
		MetaEncodingVersion: strconv.Itoa(env.EncodingVersion),
		MetaObservation: fmt.Sprintf("%d planes of 6x6 (plane-major, square a1=0, b1=1, ..., f6=35), seen from the side to move, as env.EncodeObservation",
			env.NumPlanes),
		MetaActionLayout: "action = (direction*24 + count-1)*36 + from, direction 0..7 = N NE E SE S SW W NW, count 1..24, " +
			"from the square a1=0, b1=1, ..., f6=35; a move maps to its first direction carrying count pieces from its square to its target",
		MetaOutputs: fmt.Sprintf("logits: the policy logits of the legal actions (action_mask 1), %g elsewhere; "+
			"softmax(logits) is the policy. value: the expected result for the side to move, in [-1, 1]", float32(MaskedLogit)),
		MetaArchitecture:  net.Config().String(),
		MetaTrainingSteps: strconv.FormatInt(net.Steps(), 10),
		MetaCommand:       how.Command,
		MetaSource:        how.Source,
		MetaDate:          how.Date.UTC().Format(time.RFC3339),
	}
	for k, v := range net.Meta {
		meta[metaNetworkPrefix+k] = v
	}
	for _, k := range slices.Sorted(maps.Keys(how.Meta)) {
		if _, taken := meta[k]; taken || strings.HasPrefix(k, metaNetworkPrefix) {
			return nil, fmt.Errorf("onnx model: metadata key %q: %w", k, ErrReservedMeta)
		}
		meta[k] = how.Meta[k]
	}
	m := &pb.ModelProto{
		IrVersion:    irVersion,
		OpsetImport:  []*pb.OperatorSetIdProto{{Domain: "", Version: Opset}},
		ProducerName: "deathstacks",
		Domain:       "io.github.deathstacks",
		DocString:    "Death Stacks policy and value network: softmax(logits) over the legal actions is the policy, value the expected result for the side to move.",
		Graph:        g,
	}
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		m.MetadataProps = append(m.MetadataProps, &pb.StringStringEntryProto{Key: k, Value: meta[k]})
	}
	return m, nil
}

// Write writes net as an ONNX model to path, atomically.
func Write(path string, net *model.Network, how Provenance) error {
	m, err := Model(net, how)
	if err != nil {
		return err
	}
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return fmt.Errorf("onnx model: %w", err)
	}
	if err := codec.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}); err != nil {
		return fmt.Errorf("write onnx model %s: %w", path, err)
	}
	return nil
}

// graph builds the network's graph from its weights (in model's file
// order).
func graph(cfg model.Config, weights []model.Tensor) (*pb.GraphProto, error) {
	g := &graphBuilder{weights: map[string]model.Tensor{}}
	for _, w := range weights {
		g.weights[w.Name] = w
	}
	x := InputObservation
	h := g.relu(g.conv(x, "stem", "stem.w", "stem.b"))
	for i := range cfg.Blocks {
		p := "block" + strconv.Itoa(i)
		r := g.relu(g.conv(h, p+".conv1", p+".w1", p+".b1"))
		r = g.conv(r, p+".conv2", p+".w2", p+".b2")
		h = g.relu(g.node("Add", p+".add", nil, h, r))
	}
	// Policy: a 1x1 convolution to one plane per (direction, count), read
	// plane-major, is the action order; plus a bias per action.
	// The heads' 1x1 convolutions are matrix products over the squares,
	// (out, C) x (batch, C, 36): the same sums as a Conv node, which
	// gonnx 1.1.0 cannot run for a 1x1 kernel.
	squares := g.node("Reshape", "trunk.squares", nil, h, g.int64s("trunk.squares.shape", -1, int64(cfg.Channels), env.NumSquares))
	pol := g.pointwise(squares, "policy.conv", "policy.w", "")
	pol = g.node("Reshape", "policy.flatten", nil, pol, g.int64s("policy.shape", -1, env.NumActions))
	pol = g.node("Add", "policy.bias", nil, pol, g.param("policy.b"))
	// Masking by arithmetic: logits*mask + (mask-1)*1e9 keeps a legal
	// logit exactly and sets an illegal one to exactly MaskedLogit.
	mask := g.node("Cast", "mask.float", []*pb.AttributeProto{attrInt("to", int64(pb.TensorProto_FLOAT))}, InputActionMask)
	keep := g.node("Mul", "mask.keep", nil, pol, mask)
	fill := g.node("Mul", "mask.fill", nil,
		g.node("Sub", "mask.illegal", nil, mask, g.float32s("one", 1)), g.float32s("masked_logit", -MaskedLogit))
	g.output("Add", OutputLogits, keep, fill)

	v := g.relu(g.pointwise(squares, "value.conv", "value.conv.w", "value.conv.b"))
	v = g.node("Flatten", "value.flatten", []*pb.AttributeProto{attrInt("axis", 1)}, v)
	v = g.relu(g.dense(v, "value.fc1"))
	v = g.node("Tanh", "value.tanh", nil, g.dense(v, "value.fc2"))
	g.output("Reshape", OutputValue, v, g.int64s("value.shape", -1))
	if g.err != nil {
		return nil, g.err
	}
	return &pb.GraphProto{
		Name: fmt.Sprintf("deathstacks_%dx%d", cfg.Blocks, cfg.Channels),
		Node: g.nodes, Initializer: g.inits,
		Input: []*pb.ValueInfoProto{
			valueInfo(InputObservation, pb.TensorProto_FLOAT, "batch", env.NumPlanes, 6, 6),
			valueInfo(InputActionMask, pb.TensorProto_UINT8, "batch", env.NumActions),
		},
		Output: []*pb.ValueInfoProto{
			valueInfo(OutputLogits, pb.TensorProto_FLOAT, "batch", env.NumActions),
			valueInfo(OutputValue, pb.TensorProto_FLOAT, "batch"),
		},
	}, nil
}

// graphBuilder collects a graph's nodes and initializers; a node's
// output is named after the node. It keeps the first error.
type graphBuilder struct {
	weights map[string]model.Tensor
	nodes   []*pb.NodeProto
	inits   []*pb.TensorProto
	err     error
}

// node adds an op named name on inputs and returns its output's name.
func (g *graphBuilder) node(op, name string, attrs []*pb.AttributeProto, inputs ...string) string {
	g.nodes = append(g.nodes, &pb.NodeProto{OpType: op, Name: name, Input: inputs, Output: []string{name}, Attribute: attrs})
	return name
}

// output adds the node of a graph output.
func (g *graphBuilder) output(op, name string, inputs ...string) { g.node(op, name, nil, inputs...) }

func (g *graphBuilder) relu(x string) string { return g.node("Relu", x+".relu", nil, x) }

// conv adds a convolution of x by the weights w (out, in, k, k) keeping
// the 6x6 size, with the per-channel bias b unless b is "".
func (g *graphBuilder) conv(x, name, w, b string) string {
	wt, ok := g.weights[w]
	if !ok || len(wt.Shape) != 4 || wt.Shape[2] != wt.Shape[3] || wt.Shape[2]%2 != 1 || wt.Shape[2] == 1 {
		g.fail("weights %s: missing or not a square filter of odd size above 1", w)
		return name
	}
	k, pad := int64(wt.Shape[2]), int64(wt.Shape[2]/2)
	inputs := []string{x, g.param(w)}
	if b != "" {
		// A convolution's bias is one value per output channel.
		inputs = append(inputs, g.paramShaped(b, wt.Shape[0]))
	}
	return g.node("Conv", name, []*pb.AttributeProto{
		attrInts("kernel_shape", k, k), attrInts("pads", pad, pad, pad, pad),
		attrInts("strides", 1, 1), attrInts("dilations", 1, 1),
	}, inputs...)
}

// pointwise adds a 1x1 convolution by the weights w (out, in, 1, 1) of
// x (batch, in, 36) as a matrix product, giving (batch, out, 36), with
// the per-channel bias b unless b is "".
func (g *graphBuilder) pointwise(x, name, w, b string) string {
	wt, ok := g.weights[w]
	if !ok || len(wt.Shape) != 4 || wt.Shape[2] != 1 || wt.Shape[3] != 1 {
		g.fail("weights %s: missing or not a 1x1 filter", w)
		return name
	}
	out := g.node("MatMul", name, nil, g.paramShaped(w, wt.Shape[0], wt.Shape[1]), x)
	if b == "" {
		return out
	}
	return g.node("Add", name+".bias", nil, out, g.paramShaped(b, wt.Shape[0], 1))
}

// dense adds the fully connected layer name: x times name.w (in, out)
// plus name.b (1, out). MatMul and Add rather than Gemm, whose float32
// alpha and beta gonnx cannot apply to float64 tensors.
func (g *graphBuilder) dense(x, name string) string {
	return g.node("Add", name, nil, g.node("MatMul", name+".matmul", nil, x, g.param(name+".w")), g.param(name+".b"))
}

// param adds the initializer of a weight tensor in its stored shape.
func (g *graphBuilder) param(name string) string {
	t, ok := g.weights[name]
	if !ok {
		g.fail("weights %s: missing", name)
		return name
	}
	return g.paramShaped(name, t.Shape...)
}

// paramShaped adds the initializer of a weight tensor in another shape
// of the same size.
func (g *graphBuilder) paramShaped(name string, shape ...int) string {
	t, ok := g.weights[name]
	size := 1
	for _, d := range shape {
		size *= d
	}
	if !ok || len(t.Data) != size {
		g.fail("weights %s: missing or not of shape %v", name, shape)
		return name
	}
	g.inits = append(g.inits, &pb.TensorProto{Name: name, DataType: int32(pb.TensorProto_FLOAT), Dims: int64s(shape), FloatData: t.Data})
	return name
}

// float32s adds a float32 constant of shape (len(v)).
func (g *graphBuilder) float32s(name string, v ...float32) string {
	g.inits = append(g.inits, &pb.TensorProto{Name: name, DataType: int32(pb.TensorProto_FLOAT), Dims: []int64{int64(len(v))}, FloatData: v})
	return name
}

// int64s adds an int64 constant of shape (len(v)), such as a shape.
func (g *graphBuilder) int64s(name string, v ...int64) string {
	g.inits = append(g.inits, &pb.TensorProto{Name: name, DataType: int32(pb.TensorProto_INT64), Dims: []int64{int64(len(v))}, Int64Data: v})
	return name
}

func (g *graphBuilder) fail(format string, a ...any) {
	if g.err == nil {
		g.err = fmt.Errorf(format, a...)
	}
}

func int64s(v []int) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

func attrInt(name string, v int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INT, I: v}
}

func attrInts(name string, v ...int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INTS, Ints: v}
}

// valueInfo describes a graph input or output of the element type elem
// and the shape dims, its first dimension the dynamic one named batch.
func valueInfo(name string, elem pb.TensorProto_DataType, batch string, dims ...int) *pb.ValueInfoProto {
	shape := &pb.TensorShapeProto{Dim: []*pb.TensorShapeProto_Dimension{{Value: &pb.TensorShapeProto_Dimension_DimParam{DimParam: batch}}}}
	for _, d := range dims {
		shape.Dim = append(shape.Dim, &pb.TensorShapeProto_Dimension{Value: &pb.TensorShapeProto_Dimension_DimValue{DimValue: int64(d)}})
	}
	return &pb.ValueInfoProto{Name: name, Type: &pb.TypeProto{Value: &pb.TypeProto_TensorType{
		TensorType: &pb.TypeProto_Tensor{ElemType: int32(elem), Shape: shape},
	}}}
}
