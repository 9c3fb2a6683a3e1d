package fused

import (
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestRunRejects checks that NewRun takes only graphs it can run as they
// are: bound inputs and the package's fused ops.
func TestRunRejects(t *testing.T) {
	for _, tc := range []struct {
		name, want string // want: in the error
		build      func(g *G.ExprGraph) error
	}{
		{"stock op", "not a fused op", func(g *G.ExprGraph) error {
			x := G.NewTensor(g, tensor.Float32, 1, G.WithShape(4), G.WithName("x"),
				G.WithValue(tensor.New(tensor.WithShape(4), tensor.WithBacking(make([]float32, 4)))))
			_, err := G.Tanh(x)
			return err
		}},
		{"unbound input", "has no value", func(g *G.ExprGraph) error {
			G.NewTensor(g, tensor.Float32, 1, G.WithShape(4), G.WithName("x"))
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := G.NewGraph()
			if err := tc.build(g); err != nil {
				t.Fatal(err)
			}
			if _, err := NewRun(g); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestTrainingRun runs a graph of gorgonia's arithmetic twice with new
// input values: each run's values are the new input's, and an op that
// can write into its last value does so instead of allocating.
func TestTrainingRun(t *testing.T) {
	g := G.NewGraph()
	backing := []float32{1, 2, 3, 4}
	x := G.NewTensor(g, tensor.Float32, 1, G.WithShape(4), G.WithName("x"),
		G.WithValue(tensor.New(tensor.WithShape(4), tensor.WithBacking(backing))))
	y := G.Must(G.Add(x, x))
	z := G.Must(G.Sum(y))
	r, err := NewTrainingRun(g)
	if err != nil {
		t.Fatal(err)
	}
	var first []float32
	for run, want := range []float32{20, 4} {
		if run == 1 {
			copy(backing, []float32{1, 0, 1, 0})
		}
		if err := r.RunAll(); err != nil {
			t.Fatal(err)
		}
		if got := r.Value(z).Data().(float32); got != want {
			t.Errorf("run %d: sum %v, want %v", run, got, want)
		}
		ys := r.Value(y).Data().([]float32)
		if run == 0 {
			first = ys
		} else if &ys[0] != &first[0] {
			t.Error("the second run allocated a new value for x+x")
		}
	}
	if r.Value(G.NewScalar(G.NewGraph(), tensor.Float32)) != nil {
		t.Error("a value for another graph's node")
	}
}
