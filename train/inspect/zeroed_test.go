package inspect

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/deathstacks/deathstacks/model"
)

func TestFindZeroedUnits(t *testing.T) {
	const tiny = 1e-9 // below a millionth of 1
	for _, tc := range []struct {
		name string
		t    model.Tensor
		want []ZeroedUnits
	}{
		{"all live", model.Tensor{Name: "a.w", Shape: []int{2, 2}, Data: []float32{1, 0.5, -0.5, 1}}, nil},
		{
			// (in 3, out 2): output 1's column and input 2's row are zero.
			"fully connected", model.Tensor{Name: "fc.w", Shape: []int{3, 2}, Data: []float32{1, tiny, -1, 0, 0, 0}},
			[]ZeroedUnits{{Tensor: "fc.w", Outputs: 1, OutputsOf: 2, Inputs: 1, InputsOf: 3}},
		},
		{
			// (out 2, in 3, 1x2): output 0 zero; input 1 zero for both outputs.
			"convolution", model.Tensor{Name: "c.w", Shape: []int{2, 3, 1, 2}, Data: []float32{0, 0, tiny, 0, 0, -tiny, 1, 0, 0, 0, 0, 2}},
			[]ZeroedUnits{{Tensor: "c.w", Outputs: 1, OutputsOf: 2, Inputs: 1, InputsOf: 3}},
		},
		{"a kernel with one live tap is live", model.Tensor{Name: "k.w", Shape: []int{1, 1, 3, 3}, Data: []float32{0, 0, 0, 0, 1, 0, 0, 0, 0}}, nil},
		{"biases passed over", model.Tensor{Name: "c.b", Shape: []int{1, 2, 1, 1}, Data: []float32{0, 1}}, nil},
		{"an all-zero tensor is all zeroed", model.Tensor{Name: "z.w", Shape: []int{1, 2}, Data: []float32{0, 0}},
			[]ZeroedUnits{{Tensor: "z.w", Outputs: 2, OutputsOf: 2, Inputs: 1, InputsOf: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := findZeroedUnits([]model.Tensor{tc.t}); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("findZeroedUnits = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func ExampleZeroedUnits_String() {
	fmt.Println(ZeroedUnits{Tensor: "value.fc1.w", Outputs: 59, OutputsOf: 64})
	fmt.Println(ZeroedUnits{Tensor: "block1.w2", Inputs: 3, InputsOf: 32})
	// Output:
	// value.fc1.w: 59 of 64 outputs
	// block1.w2: 3 of 32 inputs
}
