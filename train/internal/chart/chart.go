// Package chart holds the look shared by every PNG chart the training
// tools draw (the run's plots, the evaluation's Elo chart, the ladder):
// fonts, lines with marks, room for the legend, and atomic PNG files.
package chart

import (
	"fmt"
	"image/png"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/deathstacks/deathstacks/model/codec"
)

// New returns an empty plot with a grid, the given title and y label, an
// x axis labelled "iteration" and the legend at the top.
func New(title, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "iteration"
	p.Y.Label.Text = yLabel
	p.Title.TextStyle.Font.Size = vg.Points(17)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(15)
		a.Tick.Label.Font.Size = vg.Points(13)
	}
	p.Legend.TextStyle.Font.Size = vg.Points(14)
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// MakeRoom raises the top of p's y axis so that a legend of n entries,
// drawn in the top right corner, stays clear of the curves.
func MakeRoom(p *plot.Plot, n int) {
	// An axis without data yet runs from +Inf down to -Inf.
	if span := p.Y.Max - p.Y.Min; n > 0 && !math.IsNaN(span) && !math.IsInf(span, 0) {
		p.Y.Max += span * 0.08 * float64(n)
	}
}

// AddLine draws a line in the i-th colour with a mark at every point, so
// that a curve of a single point still shows, and a legend entry unless
// name is empty. The points must be finite.
func AddLine(p *plot.Plot, name string, xys plotter.XYs, i int) {
	line := &plotter.Line{XYs: xys, LineStyle: plotter.DefaultLineStyle}
	line.Color, line.Width = plotutil.Color(i), vg.Points(1.5)
	points := &plotter.Scatter{XYs: xys, GlyphStyle: plotter.DefaultGlyphStyle}
	points.Color, points.Shape, points.Radius = plotutil.Color(i), plotutil.Shape(i), vg.Points(2.5)
	p.Add(line, points)
	if name != "" {
		p.Legend.Add(name, line, points)
	}
}

// AddIntervals draws values with their intervals in the i-th colour: a
// bar for each interval and, through the values, a line as [AddLine]
// draws it. It returns the values' places.
func AddIntervals(p *plot.Plot, name string, pts Points, i int) (plotter.XYs, error) {
	bars, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return nil, err
	}
	bars.Color = plotutil.Color(i)
	p.Add(bars)
	xys, err := plotter.CopyXYs(pts)
	if err != nil {
		return nil, err
	}
	AddLine(p, name, xys, i)
	return xys, nil
}

// Point is a value with its interval, such as an Elo rating.
type Point struct{ X, Y, Low, High float64 }

// Points are values with intervals: a plotter.XYer and YErrorer.
type Points []Point

// Len implements plotter.XYer.
func (e Points) Len() int { return len(e) }

// XY implements plotter.XYer.
func (e Points) XY(i int) (x, y float64) { return e[i].X, e[i].Y }

// YError implements plotter.YErrorer.
func (e Points) YError(i int) (low, high float64) { return e[i].Y - e[i].Low, e[i].High - e[i].Y }

// Save draws a grid of plots into a PNG of w x h pixels at path, written
// atomically.
func Save(path string, rows [][]*plot.Plot, w, h vg.Length) error {
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(72))
	tiles := draw.Tiles{
		Rows: len(rows), Cols: len(rows[0]),
		PadTop: 8, PadBottom: 8, PadLeft: 8, PadRight: 16, PadX: 24, PadY: 24,
	}
	canvases := plot.Align(rows, tiles, draw.New(img))
	for j, row := range rows {
		for i, p := range row {
			p.Draw(canvases[j][i])
		}
	}
	// Fast compression: a chart of flat colours compresses about as well,
	// in a fraction of the time (a training run redraws its charts every
	// iteration).
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := codec.WriteFileAtomic(path, func(w io.Writer) error { return enc.Encode(w, img.Image()) }); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}
