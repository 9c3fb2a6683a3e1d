// Command strengthplot draws README's plot of strength against training
// time: the Elo over the anchor, with its 95% interval, of runs measured
// at several training times (a table of train/RESULTS.md), as a PNG.
//
//	go run ./train/internal/strengthplot train/strength.tsv train/strength.png
//
// The table has a line per measurement, its fields separated by tabs:
// training minutes, Elo, the interval's half-width, the run, the entry of
// train/EXPERIMENTS.md that measured it; lines starting with # are
// comments.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/deathstacks/deathstacks/train/internal/chart"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: strengthplot TABLE.tsv OUT.png")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "strengthplot:", err)
		os.Exit(1)
	}
}

func run(table, out string) error {
	f, err := os.Open(table)
	if err != nil {
		return err
	}
	defer f.Close()
	pts, err := parse(f, table)
	if err != nil {
		return err
	}
	return draw(pts, out)
}

// parse reads the table's measurements; name is the table's file, for
// errors.
func parse(r io.Reader, name string) (chart.Points, error) {
	var pts chart.Points
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, "\t")
		if len(fields) != 5 {
			return nil, fmt.Errorf("%s:%d: %d fields: want 5 separated by tabs (minutes, elo, half-interval, run, entry)", name, line, len(fields))
		}
		var v [3]float64
		for i, what := range []string{"minutes", "elo", "half-interval"} {
			x, err := strconv.ParseFloat(fields[i], 64)
			if err != nil || x != x || (i != 1 && x < 0) {
				return nil, fmt.Errorf("%s:%d: %s %q: want a number%s", name, line, what, fields[i], map[bool]string{true: "", false: " of 0 or more"}[i == 1])
			}
			v[i] = x
		}
		pts = append(pts, chart.Point{X: v[0], Y: v[1], Low: v[1] - v[2], High: v[1] + v[2]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("%s: no measurement", name)
	}
	return pts, nil
}

// draw writes the measurements with their intervals, unjoined (each is a
// run of its own), beside the anchor's 0.
func draw(pts chart.Points, out string) error {
	p := chart.New("Elo over the anchor against training time (95% intervals)", "Elo over the anchor")
	p.X.Label.Text = "training time on 2 cores (minutes)"
	p.X.Min = 0
	bars, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return err
	}
	bars.Color = plotutil.Color(0)
	marks, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	marks.Color, marks.Shape, marks.Radius = plotutil.Color(0), plotutil.Shape(0), vg.Points(3)
	p.Add(bars, marks)
	p.Legend.Add("a run of the default config, from zero", marks)
	maxX := 0.0
	for _, pt := range pts {
		maxX = max(maxX, pt.X)
	}
	chart.AddLine(p, "the anchor (0)", plotter.XYs{{X: 0, Y: 0}, {X: maxX * 1.05, Y: 0}}, 1)
	chart.MakeRoom(p, 2)
	return chart.Save(out, [][]*plot.Plot{{p}}, 900, 500)
}
