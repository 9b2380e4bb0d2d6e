package repl

import (
	"errors"
	"fmt"
	"image/color"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/ir"
)

// Plot draws the last sweep to path (.svg or .png): the predicted time and
// the mean compute, communication and wait against the swept value, on
// log axes where the values span a decade or more.
func (s *Session) Plot(path string) error {
	sw := s.sweep
	if sw == nil {
		return errors.New("no sweep yet: sweep NAME V1 V2 ..., then plot it")
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg", ".png":
	default:
		return fmt.Errorf("plot %s: name a .svg or .png file", path)
	}
	xs := make([]float64, 0, len(sw.values))
	var kept []*interp.Result
	for i, v := range sw.values {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			n, err := ir.ParseInt(v)
			if err != nil {
				return fmt.Errorf("plot needs numbers to plot against, and %s %q is not one", sw.name, v)
			}
			x = float64(n)
		}
		if r := sw.res[i]; r != nil && r.OK() {
			xs = append(xs, x)
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 {
		return errors.New("no run of the sweep finished cleanly: nothing to plot")
	}
	series := []struct {
		name string
		get  func(*interp.Result) interp.Time
	}{
		{"predicted", func(r *interp.Result) interp.Time { return r.Predicted }},
		{"compute (mean)", func(r *interp.Result) interp.Time { return r.Compute().Mean }},
		{"communication (mean)", func(r *interp.Result) interp.Time { return r.Comm().Mean }},
		{"wait (mean)", func(r *interp.Result) interp.Time { return r.Wait().Mean }},
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: predicted time against %s", s.prog.file, sw.name)
	p.X.Label.Text = sw.name
	p.Y.Label.Text = "time (us)"
	var ys []float64
	for k, se := range series {
		pts := make(plotter.XYs, len(kept))
		for i, r := range kept {
			pts[i] = plotter.XY{X: xs[i], Y: se.get(r).Micros()}
			ys = append(ys, pts[i].Y)
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		c := plotutil.Color(k)
		line.Color, points.Color = c, c
		points.Shape = plotutil.Shape(k)
		if k == 0 {
			line.Width = vg.Points(2)
		}
		p.Add(line, points)
		p.Legend.Add(se.name, line, points)
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	// The swept values are few and chosen: tick each one.
	ticks := make(plot.ConstantTicks, len(xs))
	for i, x := range xs {
		ticks[i] = plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', -1, 64)}
	}
	p.X.Tick.Marker = ticks
	if spansDecades(xs) {
		p.X.Scale = plot.LogScale{}
	}
	if spansDecades(ys) {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	p.BackgroundColor = color.White
	if err := p.Save(8*vg.Inch, 5*vg.Inch, path); err != nil {
		return err
	}
	fmt.Fprintf(s.out, "wrote %s: %d points of the sweep over %s\n", path, len(kept), sw.name)
	return nil
}

// spansDecades reports whether positive values span a factor of ten or
// more, which a log axis shows better; a zero rules a log axis out.
func spansDecades(v []float64) bool {
	if len(v) == 0 || slices.Min(v) <= 0 {
		return false
	}
	return slices.Max(v)/slices.Min(v) >= 10
}
