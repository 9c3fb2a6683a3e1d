package onnx_test

import (
	"fmt"
	"math/rand/v2"

	pb "github.com/advancedclimatesystems/gonnx/onnx"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/model/onnx"
)

func ExampleModel() {
	net, err := model.New(model.DefaultConfig(), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := onnx.Model(net, provenance)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("opset", m.GetOpsetImport()[0].GetVersion())
	for _, v := range append(m.GetGraph().GetInput(), m.GetGraph().GetOutput()...) {
		var dims []any
		for _, d := range v.GetType().GetTensorType().GetShape().GetDim() {
			if d.GetDimParam() != "" {
				dims = append(dims, d.GetDimParam())
			} else {
				dims = append(dims, d.GetDimValue())
			}
		}
		fmt.Println(v.GetName(), pb.TensorProto_DataType(v.GetType().GetTensorType().GetElemType()), dims)
	}
	// Output:
	// opset 13
	// observation FLOAT [batch 21 6 6]
	// action_mask UINT8 [batch 6912]
	// logits FLOAT [batch 6912]
	// value FLOAT [batch]
}
