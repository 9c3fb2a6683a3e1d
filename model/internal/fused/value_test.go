package fused

import (
	"math"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"gorgonia.org/tensor"
)

// valueDims are the Dims of a network with no residual block whose value
// head has planes planes and hidden units; only the value head's fully
// connected shapes matter to a ValueLossOp.
func valueDims(planes, hidden int) Dims {
	// The trunk's and the heads' convolutions' shapes, which it does not
	// read, then the fully connected layers'.
	shapes := make([][]int, TrunkParams(0)+4)
	shapes = append(shapes, []int{planes * env.NumSquares, hidden}, []int{1, hidden}, []int{hidden, 1}, []int{1, 1})
	return Dims{ValuePlanes: planes, ValueHidden: hidden, Shapes: shapes}
}

// valueLossArgs are a ValueLossOp's input values: the planes and the
// fully connected layers' weights of d, from a fixed sequence.
func valueLossArgs(d Dims, batch int) []tensor.Tensor {
	shapes := append([][]int{{batch, d.ValuePlanes * env.NumSquares}}, d.Shapes[len(d.Shapes)-4:]...)
	args := make([]tensor.Tensor, len(shapes))
	k := 0
	for i, s := range shapes {
		v := make([]float32, tensor.Shape(s).TotalSize())
		for j := range v {
			v[j] = float32(math.Sin(float64(3*k+1))) * 0.5
			k++
		}
		args[i] = tensor.New(tensor.WithShape(s...), tensor.WithBacking(v))
	}
	return args
}

// TestValueLossOp checks the loss and the values against their
// definition in float64. (The model package's tests check the gradients
// against gorgonia's stock graph and central differences.)
func TestValueLossOp(t *testing.T) {
	const batch = 3
	d := valueDims(2, 5)
	result := []float32{1, -1, 0}
	op := NewValueLossOp(d, batch, result)
	args := valueLossArgs(d, batch)
	out, err := op.Do(args[0], args[1], args[2], args[3], args[4])
	if err != nil {
		t.Fatal(err)
	}
	x, w1, b1, w2, b2 := args[0].Data().([]float32), args[1].Data().([]float32), args[2].Data().([]float32), args[3].Data().([]float32), args[4].Data().([]float32)
	k, h := d.ValuePlanes*env.NumSquares, d.ValueHidden
	var loss float64
	for b := range batch {
		sum := float64(b2[0])
		for j := range h {
			a := float64(b1[j])
			for i := range k {
				a += float64(x[b*k+i]) * float64(w1[i*h+j])
			}
			sum += max(a, 0) * float64(w2[j])
		}
		v := math.Tanh(sum)
		if got := float64(op.Values().Float32s()[b]); math.Abs(got-v) > 1e-5 {
			t.Errorf("value %d is %v, want %v", b, got, v)
		}
		loss += (v - float64(result[b])) * (v - float64(result[b])) / batch
	}
	if got := float64(out.Data().([]float32)[0]); math.Abs(got-loss) > 1e-5 {
		t.Errorf("loss %v, want %v", got, loss)
	}
}

// TestValueLossOpRejectsResults checks that results that do not fit the
// batch are an error, not a wrong loss or a panic.
func TestValueLossOpRejectsResults(t *testing.T) {
	d := valueDims(1, 2)
	args := valueLossArgs(d, 2)
	op := NewValueLossOp(d, 2, []float32{1})
	if _, err := op.Do(args[0], args[1], args[2], args[3], args[4]); err == nil || !strings.Contains(err.Error(), "1 results for 2 positions") {
		t.Errorf("error %v, want one about the results' count", err)
	}
}

func BenchmarkValueLossOp(b *testing.B) {
	// A training shard's batch of 32 rows of the default value head.
	const batch = 32
	d := valueDims(2, 64)
	result := make([]float32, batch)
	op := NewValueLossOp(d, batch, result)
	args := valueLossArgs(d, batch)
	for b.Loop() {
		if _, err := op.Do(args[0], args[1], args[2], args[3], args[4]); err != nil {
			b.Fatal(err)
		}
	}
}
