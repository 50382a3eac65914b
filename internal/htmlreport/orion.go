package htmlreport

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	gonumpalette "gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"

	"github.com/clydebench/clyde/result"
)

// orionGrid is one figure of an ORION matrix laid out as the CSVs are: a
// column per small load, a row per large load, NaN where no point ran or
// the point has no such figure (no small I/O at Small=0).
type orionGrid struct {
	small, large []int
	z            [][]float64 // z[row][col]
}

// orionMetric picks small-I/O IOPS or large-I/O MB/s from a point.
type orionMetric struct {
	title string
	value func(p *result.OrionPoint) (float64, bool)
}

var orionMetrics = []orionMetric{
	{"small I/O IOPS", func(p *result.OrionPoint) (float64, bool) { return p.SmallIOPS, p.Small > 0 }},
	{"large I/O MBPS", func(p *result.OrionPoint) (float64, bool) { return p.LargeMBPS, p.Large > 0 }},
}

// gridOf lays out set's figure; ok is false when no point has it.
func gridOf(s *result.OrionSet, m orionMetric) (orionGrid, bool) {
	g := orionGrid{small: s.SmallLoads, large: s.LargeLoads}
	col := map[int]int{}
	for i, v := range g.small {
		col[v] = i
	}
	row := map[int]int{}
	for i, v := range g.large {
		row[v] = i
	}
	g.z = make([][]float64, len(g.large))
	for r := range g.z {
		g.z[r] = make([]float64, len(g.small))
		for c := range g.z[r] {
			g.z[r][c] = math.NaN()
		}
	}
	ok := false
	for i := range s.Points {
		p := &s.Points[i]
		c, okc := col[p.Small]
		r, okr := row[p.Large]
		if v, has := m.value(p); has && okc && okr {
			g.z[r][c], ok = v, true
		}
	}
	return g, ok
}

// The plotter.GridXYZ view of a grid: cells at their column and row
// index, so uneven loads (1, 2, 4, 8) get cells of one width.
func (g orionGrid) Dims() (int, int)   { return len(g.small), len(g.large) }
func (g orionGrid) Z(c, r int) float64 { return g.z[r][c] }
func (g orionGrid) X(c int) float64    { return float64(c) }
func (g orionGrid) Y(r int) float64    { return float64(r) }

func (g orionGrid) span() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, row := range g.z {
		for _, v := range row {
			if !math.IsNaN(v) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	return lo, hi
}

// orionHeatmap draws a grid: darker is lower, each cell labelled with its
// figure; cells that did not run are left blank.
func orionHeatmap(g orionGrid, title string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "small I/O load (outstanding I/Os)"
	p.Y.Label.Text = "large I/O load"
	h := plotter.NewHeatMap(g, gonumpalette.Heat(16, 1))
	h.Min, h.Max = g.span()
	if h.Max <= h.Min {
		h.Max = h.Min + 1
	}
	h.NaN = color.Transparent
	p.Add(h)
	var labels plotter.XYLabels
	for r, row := range g.z {
		for c, v := range row {
			if !math.IsNaN(v) {
				labels.XYs = append(labels.XYs, plotter.XY{X: float64(c), Y: float64(r)})
				labels.Labels = append(labels.Labels, strconv.FormatFloat(v, 'f', 0, 64))
			}
		}
	}
	if len(labels.XYs) > 0 {
		l, err := plotter.NewLabels(labels)
		if err != nil {
			return nil, err
		}
		for i := range l.TextStyle {
			l.TextStyle[i].XAlign, l.TextStyle[i].YAlign = -0.5, -0.5
		}
		p.Add(l)
	}
	p.X.Tick.Marker = indexTicks(g.small)
	p.Y.Tick.Marker = indexTicks(g.large)
	return p, nil
}

// indexTicks labels the cells at 0, 1, ... with their loads.
type indexTicks []int

func (t indexTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for i, v := range t {
		if float64(i) >= lo && float64(i) <= hi {
			out = append(out, plot.Tick{Value: float64(i), Label: strconv.Itoa(v)})
		}
	}
	return out
}

// orionCharts are the heat maps of a run's ORION matrices, named for the
// page.
func orionCharts(prefix string, b *result.Block) ([]namedPlot, error) {
	if b.Orion == nil {
		return nil, nil
	}
	var out []namedPlot
	for i := range b.Orion.Sets {
		s := &b.Orion.Sets[i]
		for _, m := range orionMetrics {
			g, ok := gridOf(s, m)
			if !ok {
				continue
			}
			title := fmt.Sprintf("%s ORION %d KiB small: %s", prefix, s.SizeSmallKiB, m.title)
			p, err := orionHeatmap(g, m.title)
			if err != nil {
				return nil, fmt.Errorf("chart %q: %w", title, err)
			}
			out = append(out, namedPlot{title, p})
		}
	}
	return out, nil
}

// namedPlot is a chart and its caption.
type namedPlot struct {
	title string
	plot  *plot.Plot
}
