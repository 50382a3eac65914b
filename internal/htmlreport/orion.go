package htmlreport

import (
	"fmt"
	"html/template"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	gonumpalette "gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"

	"github.com/clydebench/clyde/internal/blockreport"
	"github.com/clydebench/clyde/result"
)

// orionGrid is one figure of an ORION matrix laid out as the CSVs are: a
// column per small load, a row per large load, NaN where no point ran or
// the point has no such figure (no small I/O at Small=0).
type orionGrid struct {
	small, large []int
	z            [][]float64 // z[row][col]
}

// orionMetric picks small-I/O IOPS, large-I/O MB/s or small-I/O latency
// from a point: ORION's _iops.csv, _mbps.csv and _lat.csv.
type orionMetric struct {
	title, unit string
	value       func(p *result.OrionPoint) (float64, bool)
}

var orionMetrics = []orionMetric{
	{"small I/O IOPS", "IOPS", func(p *result.OrionPoint) (float64, bool) { return p.SmallIOPS, p.Small > 0 }},
	{"large I/O MBPS", "MBPS", func(p *result.OrionPoint) (float64, bool) { return p.LargeMBPS, p.Large > 0 }},
	{"small I/O latency", "us", func(p *result.OrionPoint) (float64, bool) { return p.SmallLatUs, p.Small > 0 && p.SmallLatUs > 0 }},
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

// trimmed is g without the rows and columns that have no figure (Small=0
// has no IOPS, Large=0 no MBPS), which would draw as an empty band.
func (g orionGrid) trimmed() orionGrid {
	var cols, rows []int
	for c := range g.small {
		for r := range g.large {
			if !math.IsNaN(g.z[r][c]) {
				cols = append(cols, c)
				break
			}
		}
	}
	for r := range g.large {
		for c := range g.small {
			if !math.IsNaN(g.z[r][c]) {
				rows = append(rows, r)
				break
			}
		}
	}
	out := orionGrid{}
	for _, c := range cols {
		out.small = append(out.small, g.small[c])
	}
	for _, r := range rows {
		out.large = append(out.large, g.large[r])
		row := make([]float64, 0, len(cols))
		for _, c := range cols {
			row = append(row, g.z[r][c])
		}
		out.z = append(out.z, row)
	}
	return out
}

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

// heatPalette is the heat maps' colours, red (lowest) through yellow to
// white (highest); the page's legend shows the same steps.
var heatPalette = gonumpalette.Heat(16, 1)

// orionHeatmap draws a grid: redder is lower, each cell labelled with its
// figure; cells that did not run are left blank.
func orionHeatmap(g orionGrid) (*plot.Plot, error) {
	p := plot.New()
	p.X.Label.Text = "small I/O load (outstanding I/Os)"
	p.Y.Label.Text = "large I/O load"
	h := plotter.NewHeatMap(g, heatPalette)
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

// namedPlot is a chart and its caption.
type namedPlot struct {
	title string
	plot  *plot.Plot
}

// orionView is an ORION run as ORION's users read it: the summary's three
// figures first, each with the point where it was reached, then each
// matrix as heat maps with their colour scales, then the curves per load
// level.
type orionView struct {
	Run      string                `json:"run"`
	TestName string                `json:"testname"`
	Command  string                `json:"command"`
	Settings []blockreport.Setting `json:"settings"`
	Sets     []orionSetView        `json:"sets"`
}

// orionSetView is one matrix (one small I/O size).
type orionSetView struct {
	SizeSmallKiB int         `json:"size_small_kib"`
	Peaks        []orionPeak `json:"peaks"`
	Maps         []chart     `json:"maps"`
	Curves       []chart     `json:"curves"`
}

// orionPeak is one of the summary's closing lines: "Maximum Large
// MBPS=7867.20 @ Small=3 and Large=4".
type orionPeak struct {
	Key   string  `json:"key"` // mbps, iops, latency
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Text  string  `json:"text"`
	Unit  string  `json:"unit"`
	Small int     `json:"small"`
	Large int     `json:"large"`
}

// colorScale is a heat map's legend: the palette's steps with the value
// each stands for, lowest first.
type colorScale struct {
	Unit    string      `json:"unit"`
	Min     float64     `json:"min"`
	Max     float64     `json:"max"`
	MinText string      `json:"min_text"`
	MaxText string      `json:"max_text"`
	Steps   []scaleStep `json:"steps"`
}

type scaleStep struct {
	Color string  `json:"color"`
	Value float64 `json:"value"`
}

func orionViewOf(letter string, b *result.Block) (orionView, error) {
	o := b.Orion
	v := orionView{Run: letter, TestName: o.TestName, Command: o.Command}
	v.Settings = []blockreport.Setting{
		{Name: "Run", Value: o.Run},
		{Name: "Large IO size", Value: strconv.Itoa(o.SizeLargeKiB) + " KB"},
		{Name: "Large IO type", Value: o.Type},
		{Name: "Write", Value: strconv.Itoa(o.WritePct) + "%"},
		{Name: "Duration for each data point", Value: strconv.Itoa(o.DurationS) + " s"},
		{Name: "Simulated array type", Value: strings.ToUpper(o.Simulate)},
	}
	for _, l := range o.LUNs {
		v.Settings = append(v.Settings, blockreport.Setting{Name: "LUN", Value: fmt.Sprintf("%s (%s bytes)", l.Path, strconv.FormatInt(l.SizeBytes, 10))})
	}
	for i := range o.Sets {
		s := &o.Sets[i]
		sv := orionSetView{SizeSmallKiB: s.SizeSmallKiB, Peaks: orionPeaks(s)}
		for _, m := range orionMetrics {
			g, ok := gridOf(s, m)
			if !ok {
				continue
			}
			c, err := heatmapChart(g, m, fmt.Sprintf("ORION %d KiB small: %s (%s)", s.SizeSmallKiB, m.title, m.unit))
			if err != nil {
				return v, err
			}
			sv.Maps = append(sv.Maps, c)
		}
		curves, err := orionCurves(s)
		if err != nil {
			return v, err
		}
		sv.Curves = curves
		v.Sets = append(v.Sets, sv)
	}
	return v, nil
}

// orionPeaks are the summary's figures of a set, in ORION's order.
func orionPeaks(s *result.OrionSet) []orionPeak {
	mbps, iops, lat := blockreport.OrionPeakPoints(s)
	var out []orionPeak
	if mbps != nil {
		out = append(out, orionPeak{Key: "mbps", Name: "Maximum Large MBPS", Value: mbps.LargeMBPS,
			Text: strconv.FormatFloat(mbps.LargeMBPS, 'f', 2, 64), Unit: "MBPS", Small: mbps.Small, Large: mbps.Large})
	}
	if iops != nil {
		out = append(out, orionPeak{Key: "iops", Name: "Maximum Small IOPS", Value: iops.SmallIOPS,
			Text: strconv.FormatFloat(iops.SmallIOPS, 'f', 0, 64), Unit: "IOPS", Small: iops.Small, Large: iops.Large})
	}
	if lat != nil {
		out = append(out, orionPeak{Key: "latency", Name: "Minimum Small Latency", Value: lat.SmallLatUs,
			Text: strconv.FormatFloat(lat.SmallLatUs, 'f', 2, 64), Unit: "usecs", Small: lat.Small, Large: lat.Large})
	}
	return out
}

// heatmapChart draws a grid as a heat map with its colour scale.
func heatmapChart(g orionGrid, m orionMetric, title string) (chart, error) {
	g = g.trimmed()
	p, err := orionHeatmap(g)
	if err != nil {
		return chart{}, fmt.Errorf("chart %q: %w", title, err)
	}
	svg, err := renderSVG(p, wideW, wideH)
	if err != nil {
		return chart{}, fmt.Errorf("chart %q: %w", title, err)
	}
	lo, hi := g.span()
	c := chart{Section: sectionOrion, Title: title, SVG: template.HTML(svg), XLabel: p.X.Label.Text, YLabel: p.Y.Label.Text}
	sc := &colorScale{Unit: m.unit, Min: lo, Max: hi, MinText: strconv.FormatFloat(lo, 'f', 0, 64), MaxText: strconv.FormatFloat(hi, 'f', 0, 64)}
	cols := heatPalette.Colors()
	for k, col := range cols {
		v := lo
		if len(cols) > 1 && hi > lo {
			v = lo + float64(k)*(hi-lo)/float64(len(cols)-1)
		}
		r, gg, b, _ := col.RGBA()
		sc.Steps = append(sc.Steps, scaleStep{Color: fmt.Sprintf("#%02x%02x%02x", r>>8, gg>>8, b>>8), Value: v})
	}
	c.Scale = sc
	return c, nil
}

// orionCurves are the matrix's figures per load level: small I/O IOPS and
// latency against the small load, a line per large load; large I/O MBPS
// against the large load, a line per small load.
func orionCurves(s *result.OrionSet) ([]chart, error) {
	var out []chart
	for _, c := range []struct {
		metric       orionMetric
		xLabel, y    string
		x, level     func(p *result.OrionPoint) int
		levelName    string
		title        string
		levelsOfLine []int
	}{
		{orionMetrics[0], "small I/O load (outstanding I/Os)", "IOPS", func(p *result.OrionPoint) int { return p.Small },
			func(p *result.OrionPoint) int { return p.Large }, "Large", "small I/O IOPS by load", s.LargeLoads},
		{orionMetrics[1], "large I/O load (outstanding I/Os)", "MBPS", func(p *result.OrionPoint) int { return p.Large },
			func(p *result.OrionPoint) int { return p.Small }, "Small", "large I/O MBPS by load", s.SmallLoads},
		{orionMetrics[2], "small I/O load (outstanding I/Os)", "latency (us)", func(p *result.OrionPoint) int { return p.Small },
			func(p *result.OrionPoint) int { return p.Large }, "Large", "small I/O latency by load", s.LargeLoads},
	} {
		var lines []line
		for _, lvl := range c.levelsOfLine {
			l := line{Name: fmt.Sprintf("%s=%d", c.levelName, lvl), Color: len(lines)}
			for i := range s.Points {
				p := &s.Points[i]
				if v, ok := c.metric.value(p); ok && c.level(p) == lvl {
					l.XY = append(l.XY, plotter.XY{X: float64(c.x(p)), Y: v})
				}
			}
			if len(l.XY) > 0 {
				sort.Slice(l.XY, func(a, b int) bool { return l.XY[a].X < l.XY[b].X })
				lines = append(lines, l)
			}
		}
		if len(lines) == 0 {
			continue
		}
		ch, err := drawLines(chart{Section: sectionOrion, Title: fmt.Sprintf("ORION %d KiB small: %s", s.SizeSmallKiB, c.title),
			XLabel: c.xLabel, YLabel: c.y, Lines: lines}, true)
		if err != nil {
			return nil, err
		}
		out = append(out, ch)
	}
	return out, nil
}
