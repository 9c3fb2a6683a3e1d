package inspect

import (
	"fmt"
	"math"
	"strings"

	"github.com/deathstacks/deathstacks/model"
)

// zeroShare is the share of its tensor's largest weight under which a
// weight counts as zero: far below anything a live unit carries, and
// above what weight decay leaves of an unused one (under Adam's L2 term
// zero or a few times float32's smallest normal number, and about 1e-15
// in a player averaged over iterations).
const zeroShare = 1e-6

// ZeroedUnits are the units of one weight tensor that take no part in the
// network's output, because every weight joining them to it is below a
// millionth of the tensor's largest: a ReLU unit that died and whose
// weights Adam's L2 term then took to zero, or an input no unit reads. A
// unit that never activates but keeps its weights (AdamW's decay shrinks
// them by a factor, not to zero) is not found this way: that takes its
// activations over positions.
type ZeroedUnits struct {
	Tensor string // such as value.fc1.w
	// Outputs counts the units the tensor computes whose every incoming
	// weight is zero, of OutputsOf; Inputs the inputs it reads with every
	// outgoing weight zero, of InputsOf.
	Outputs, OutputsOf int
	Inputs, InputsOf   int
}

// String writes "value.fc1.w: 59 of 64 outputs", with the inputs when any.
func (d ZeroedUnits) String() string {
	var parts []string
	if d.Outputs > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d outputs", d.Outputs, d.OutputsOf))
	}
	if d.Inputs > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d inputs", d.Inputs, d.InputsOf))
	}
	return d.Tensor + ": " + strings.Join(parts, ", ")
}

// findZeroedUnits returns the tensors with zeroed units among weights, in
// their order: the convolutions' (shape out, in, k, k) and the fully
// connected layers' (shape in, out); biases are passed over.
func findZeroedUnits(weights []model.Tensor) []ZeroedUnits {
	var out []ZeroedUnits
	for _, t := range weights {
		if strings.HasSuffix(t.Name, ".b") {
			continue
		}
		var rows, cols, inner int // the tensor as [rows][cols][inner] with rows the outputs
		outputsFirst := true
		switch len(t.Shape) {
		case 4:
			rows, cols, inner = t.Shape[0], t.Shape[1], t.Shape[2]*t.Shape[3]
		case 2:
			rows, cols, inner, outputsFirst = t.Shape[0], t.Shape[1], 1, false
		default:
			continue
		}
		largest := 0.0
		for _, w := range t.Data {
			largest = max(largest, math.Abs(float64(w)))
		}
		below := largest * zeroShare
		rowLive, colLive := make([]bool, rows), make([]bool, cols)
		for r := range rows {
			for c := range cols {
				for _, w := range t.Data[(r*cols+c)*inner : (r*cols+c+1)*inner] {
					if math.Abs(float64(w)) > below {
						rowLive[r], colLive[c] = true, true
						break
					}
				}
			}
		}
		d := ZeroedUnits{Tensor: t.Name, Outputs: countFalse(rowLive), OutputsOf: rows, Inputs: countFalse(colLive), InputsOf: cols}
		if !outputsFirst {
			d.Outputs, d.OutputsOf, d.Inputs, d.InputsOf = d.Inputs, d.InputsOf, d.Outputs, d.OutputsOf
		}
		if d.Outputs > 0 || d.Inputs > 0 {
			out = append(out, d)
		}
	}
	return out
}

func countFalse(xs []bool) int {
	n := 0
	for _, x := range xs {
		if !x {
			n++
		}
	}
	return n
}
