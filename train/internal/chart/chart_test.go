package chart

import (
	"path/filepath"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/deathstacks/deathstacks/train/internal/charttest"
)

func TestSave(t *testing.T) {
	p := New("Elo", "points")
	AddLine(p, "greedy", plotter.XYs{{X: 1, Y: 0}, {X: 2, Y: 5}}, 1)
	xys, err := AddIntervals(p, "network", Points{{X: 1, Y: 10, Low: 5, High: 20}, {X: 2, Y: 30, Low: 25, High: 31}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(xys) != 2 || xys[1] != (plotter.XY{X: 2, Y: 30}) {
		t.Errorf("AddIntervals placed the values at %v", xys)
	}
	if p.Y.Max < 31 || p.Y.Min > 0 {
		t.Errorf("y axis %v to %v: want the intervals and lines in it", p.Y.Min, p.Y.Max)
	}
	before := p.Y.Max
	MakeRoom(p, 2)
	if p.Y.Max <= before {
		t.Errorf("MakeRoom left the top at %v", p.Y.Max)
	}
	path := filepath.Join(t.TempDir(), "c.png")
	if err := Save(path, [][]*plot.Plot{{p, New("empty", "")}}, 1000, 450); err != nil {
		t.Fatal(err)
	}
	charttest.CheckPNG(t, path)
}

func TestPointsErrors(t *testing.T) {
	pts := Points{{X: 3, Y: 10, Low: 4, High: 19}}
	if x, y := pts.XY(0); x != 3 || y != 10 {
		t.Errorf("XY = %v, %v", x, y)
	}
	if lo, hi := pts.YError(0); lo != 6 || hi != 9 {
		t.Errorf("YError = %v, %v: want the distances 6 and 9", lo, hi)
	}
}
