package loadtest

import (
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"sort"
	"strconv"
)

type namedColor struct {
	name string
	c    color.RGBA
}

// palette colours the plot's lines, in order.
var palette = []namedColor{
	{"blue", color.RGBA{31, 119, 180, 255}}, {"orange", color.RGBA{255, 127, 14, 255}},
	{"green", color.RGBA{44, 160, 44, 255}}, {"red", color.RGBA{214, 39, 40, 255}},
	{"purple", color.RGBA{148, 103, 189, 255}}, {"brown", color.RGBA{140, 86, 75, 255}},
	{"pink", color.RGBA{227, 119, 194, 255}}, {"grey", color.RGBA{127, 127, 127, 255}},
	{"olive", color.RGBA{188, 189, 34, 255}}, {"cyan", color.RGBA{23, 190, 207, 255}},
	{"black", color.RGBA{0, 0, 0, 255}}, {"navy", color.RGBA{0, 0, 128, 255}},
}

// panel maps data coordinates into a rectangle of the image.
type panel struct {
	img        *image.RGBA
	r          image.Rectangle
	xmax, ymax float64
}

func (p panel) at(x, y float64) (int, int) {
	px := p.r.Min.X + int(x/p.xmax*float64(p.r.Dx()))
	py := p.r.Max.Y - int(y/p.ymax*float64(p.r.Dy()))
	return px, py
}

func (p panel) line(x0, y0, x1, y1 float64, c color.Color) {
	ax, ay := p.at(x0, y0)
	bx, by := p.at(x1, y1)
	n := max(abs(bx-ax), abs(by-ay), 1)
	for i := 0; i <= n; i++ {
		x := ax + (bx-ax)*i/n
		y := ay + (by-ay)*i/n
		p.img.Set(x, y, c)
		p.img.Set(x, y+1, c)
	}
}

// frame draws the axes, gridlines every xstep and ystep, and their labels.
func (p panel) frame(xstep, ystep float64) {
	grid := color.RGBA{225, 225, 225, 255}
	for x := 0.0; x <= p.xmax; x += xstep {
		px, _ := p.at(x, 0)
		for y := p.r.Min.Y; y <= p.r.Max.Y; y++ {
			p.img.Set(px, y, grid)
		}
		text(p.img, px-4, p.r.Max.Y+6, strconv.FormatFloat(x, 'f', -1, 64))
	}
	for y := 0.0; y <= p.ymax; y += ystep {
		_, py := p.at(0, y)
		for x := p.r.Min.X; x <= p.r.Max.X; x++ {
			p.img.Set(x, py, grid)
		}
		text(p.img, p.r.Min.X-8*len(strconv.FormatFloat(y, 'f', -1, 64))-6, py-5, strconv.FormatFloat(y, 'f', -1, 64))
	}
	p.line(0, 0, p.xmax, 0, color.Black)
	p.line(0, 0, 0, p.ymax, color.Black)
}

// writePlot draws the latency CDFs and the RSS series into a PNG.
func writePlot(path string, res *Result) error {
	img := image.NewRGBA(image.Rect(0, 0, 1100, 760))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	top := panel{img: img, r: image.Rect(80, 20, 1080, 320), ymax: 100}
	pg, gi := latencies(res)
	lats := [][]float64{pg, gi}
	for _, l := range lats {
		if len(l) > 0 {
			top.xmax = max(top.xmax, l[len(l)-1])
		}
	}
	top.xmax = math.Max(1, math.Ceil(top.xmax))
	top.frame(niceStep(top.xmax, 1), 25)
	for i, l := range lats {
		for j := 1; j < len(l); j++ {
			top.line(l[j-1], 100*float64(j-1)/float64(len(l)), l[j], 100*float64(j)/float64(len(l)), palette[i].c)
		}
	}
	bottom := panel{img: img, r: image.Rect(80, 380, 1080, 730)}
	for _, pts := range res.RSS {
		for _, pt := range pts {
			bottom.xmax, bottom.ymax = max(bottom.xmax, pt.T), max(bottom.ymax, pt.V)
		}
	}
	bottom.xmax, bottom.ymax = math.Max(60, bottom.xmax), math.Max(100, math.Ceil(bottom.ymax/100)*100)
	bottom.frame(niceStep(bottom.xmax, 60), niceStep(bottom.ymax, 100))
	for i, name := range sortedKeys(res.RSS) {
		pts := res.RSS[name]
		for j := 1; j < len(pts); j++ {
			bottom.line(pts[j-1].T, pts[j-1].V, pts[j].T, pts[j].V, palette[i%len(palette)].c)
		}
	}
	for _, at := range res.PhaseStarts {
		x, y := bottom.at(at, 0)
		for d := 0; d < 12; d++ {
			img.Set(x, y-d, color.RGBA{200, 0, 0, 255})
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
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

// niceStep returns a multiple of base giving at most about 12 gridlines.
func niceStep(span, base float64) float64 {
	step := base
	for span/step > 12 {
		step *= 2
	}
	return step
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
