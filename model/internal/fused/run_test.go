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
