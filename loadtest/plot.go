package loadtest

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// palette colours the plot's lines, in order: distinguishable, and the
// legend names each line.
var palette = []color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255},
	{188, 189, 34, 255}, {23, 190, 207, 255}, {0, 0, 0, 255}, {0, 0, 128, 255},
}

// Plot size: two panels stacked, 11 by 9 inches at 100 dpi.
const (
	plotWidth  = 11 * vg.Inch
	plotHeight = 9 * vg.Inch
	plotDPI    = 100
)

// writePlot draws the change-to-sink latency CDFs and the RSS series into a
// PNG: each panel with a title, axis labels with units and a legend.
func writePlot(path string, res *Result) error {
	top, err := latencyPlot(res)
	if err != nil {
		return err
	}
	bottom, err := rssPlot(res)
	if err != nil {
		return err
	}
	img := vgimg.NewWith(vgimg.UseWH(plotWidth, plotHeight), vgimg.UseDPI(plotDPI))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadTop: vg.Points(6), PadBottom: vg.Points(6), PadX: vg.Points(6), PadY: vg.Points(16)}
	canvases := plot.Align([][]*plot.Plot{{top}, {bottom}}, tiles, dc)
	top.Draw(canvases[0][0])
	bottom.Draw(canvases[1][0])
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// latencyPlot is the cumulative distribution of the seconds from a change
// to the API server until each sink showed it.
func latencyPlot(res *Result) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Change-to-sink latency, %d changes (cumulative)", len(res.Changes))
	p.X.Label.Text = "latency from the API write to the sink (s)"
	p.Y.Label.Text = "changes seen in the sink (%)"
	p.Y.Min, p.Y.Max = 0, 100
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = false, false
	pg, git := latencies(res)
	for i, s := range []struct {
		name string
		vs   []float64
	}{{"PostgreSQL sink", pg}, {"Git sink", git}} {
		if len(s.vs) == 0 {
			continue
		}
		xys := make(plotter.XYs, 0, len(s.vs)+1)
		xys = append(xys, plotter.XY{X: s.vs[0], Y: 0})
		for j, v := range s.vs {
			xys = append(xys, plotter.XY{X: v, Y: 100 * float64(j+1) / float64(len(s.vs))})
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("plot %s latencies: %w", s.name, err)
		}
		l.Color, l.Width = palette[i], vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s (%d of %d)", s.name, len(s.vs), len(res.Changes)), l)
	}
	if p.X.Max <= p.X.Min {
		p.X.Min, p.X.Max = 0, 1
	}
	return p, nil
}

// rssPlot is each process's resident memory over the run, with the phase
// starts marked.
func rssPlot(res *Result) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Resident memory (RSS) per process; dotted lines: phase starts"
	p.X.Label.Text = "time since the run started (s)"
	p.Y.Label.Text = "RSS (MiB)"
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	ymax := 0.0
	for i, name := range sortedKeys(res.RSS) {
		pts := res.RSS[name]
		if len(pts) == 0 {
			continue
		}
		xys := make(plotter.XYs, len(pts))
		for j, pt := range pts {
			xys[j] = plotter.XY{X: pt.T, Y: pt.V}
			ymax = max(ymax, pt.V)
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("plot the RSS of %s: %w", name, err)
		}
		l.Color, l.Width = palette[i%len(palette)], vg.Points(1.2)
		if i >= len(palette) {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(l)
		p.Legend.Add(name, l)
	}
	ymax = math.Max(100, ymax*1.45) // headroom for the legend, top left
	p.Y.Max = ymax
	phases := make([]string, 0, len(res.PhaseStarts))
	for name := range res.PhaseStarts {
		phases = append(phases, name)
	}
	sort.Slice(phases, func(i, j int) bool { return res.PhaseStarts[phases[i]] < res.PhaseStarts[phases[j]] })
	for _, name := range phases {
		at := res.PhaseStarts[name]
		l, err := plotter.NewLine(plotter.XYs{{X: at, Y: 0}, {X: at, Y: ymax}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes = color.NRGBA{200, 0, 0, 180}, []vg.Length{vg.Points(1), vg.Points(3)}
		p.Add(l)
		label, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: at, Y: ymax * 0.02}}, Labels: []string{name}})
		if err != nil {
			return nil, err
		}
		label.TextStyle[0].Rotation = math.Pi / 2 // reads upwards from the time axis
		label.TextStyle[0].Color = color.NRGBA{160, 0, 0, 255}
		label.TextStyle[0].XAlign, label.TextStyle[0].YAlign = draw.XLeft, draw.YBottom
		p.Add(label)
	}
	return p, nil
}

// latencies returns the sorted PostgreSQL and Git latencies.
func latencies(res *Result) (pg, git []float64) {
	for _, c := range res.Changes {
		if c.PG >= 0 {
			pg = append(pg, c.PG)
		}
		if c.Git >= 0 {
			git = append(git, c.Git)
		}
	}
	sort.Float64s(pg)
	sort.Float64s(git)
	return pg, git
}
