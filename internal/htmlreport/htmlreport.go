// Package htmlreport renders runs as one self-contained HTML page: a table
// coloured like bon_csv2html's and charts drawn with gonum.org/v1/plot,
// inlined as SVG. The page loads nothing: no scripts, fonts or images from
// anywhere, so it can be mailed or opened offline.
package htmlreport

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/clydebench/clyde/internal/bonnie"
	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/result"
)

// page is what the template fills.
type page struct {
	Title  string
	Runs   []runInfo
	Header []string
	Units  []string
	Rows   [][]cell
	Charts []chart
}

type runInfo struct {
	Letter, Label, Source, Host, Target, Started string
}

type cell struct {
	Text  string
	Color string
}

type chart struct {
	Title string
	SVG   template.HTML
}

// Write renders runs (all of one kind) as an HTML page.
func Write(w io.Writer, runs []*compare.Run) error {
	if len(runs) == 0 {
		return fmt.Errorf("no runs to render")
	}
	p := page{Title: fmt.Sprintf("clyde %s report: %d run(s)", runs[0].Kind(), len(runs))}
	for i, r := range runs {
		ri := runInfo{Letter: compare.RunLetter(i), Label: r.Label, Source: r.Source, Host: r.Host(), Target: r.Target()}
		if t := r.Provenance().StartTime; !t.IsZero() {
			ri.Started = t.Format("2006-01-02 15:04")
		}
		p.Runs = append(p.Runs, ri)
	}
	buildTable(&p, runs)
	charts, err := buildCharts(runs)
	if err != nil {
		return err
	}
	p.Charts = charts
	return pageTemplate.Execute(w, p)
}

// figureGrid lines every run's figures up by key, in first-seen order.
func figureGrid(runs []*compare.Run) ([]string, map[string]compare.Figure, [][]compare.Figure) {
	var keys []string
	proto := map[string]compare.Figure{}
	per := make([]map[string]compare.Figure, len(runs))
	for i, r := range runs {
		per[i] = map[string]compare.Figure{}
		for _, f := range r.Figures() {
			if _, ok := proto[f.Key]; !ok {
				keys = append(keys, f.Key)
				proto[f.Key] = f
			}
			per[i][f.Key] = f
		}
	}
	grid := make([][]compare.Figure, len(runs))
	for i := range runs {
		for _, k := range keys {
			f, ok := per[i][k]
			if !ok {
				f = compare.Figure{Key: k, State: compare.NotRun}
			}
			grid[i] = append(grid[i], f)
		}
	}
	return keys, proto, grid
}

// buildTable fills one row per run, one column per figure, coloured per
// column as bon_csv2html does: distinct values spread from red (worst) to
// green (best).
func buildTable(p *page, runs []*compare.Run) {
	keys, proto, grid := figureGrid(runs)
	var used []int
	for k := range keys {
		for i := range runs {
			if grid[i][k].State != compare.NotRun {
				used = append(used, k)
				break
			}
		}
	}
	for _, k := range used {
		p.Header = append(p.Header, keys[k])
		p.Units = append(p.Units, proto[keys[k]].Unit)
	}
	p.Rows = make([][]cell, len(runs))
	for _, k := range used {
		var vals []float64
		for i := range runs {
			if f := grid[i][k]; f.State == compare.Known && len(f.Values) > 0 {
				vals = append(vals, avg(f.Values))
			}
		}
		colors := colorScale(vals, proto[keys[k]].HigherIsBetter)
		for i := range runs {
			f := grid[i][k]
			c := cell{Text: "-"}
			switch f.State {
			case compare.TooFast:
				c.Text = "+++++"
			case compare.Unknown:
				c.Text = "unknown"
			case compare.Known:
				if len(f.Values) > 0 {
					v := avg(f.Values)
					c.Text, c.Color = formatValue(v, f.Unit), colors[v]
				}
			}
			p.Rows[i] = append(p.Rows[i], c)
		}
	}
}

// colorScale maps each distinct value to #RRGG00, red for the worst and
// green for the best, as bon_csv2html colours its columns.
func colorScale(vals []float64, higherBetter bool) map[float64]string {
	d := map[float64]bool{}
	for _, v := range vals {
		d[v] = true
	}
	var u []float64
	for v := range d {
		u = append(u, v)
	}
	sort.Float64s(u)
	out := map[float64]string{}
	for i, v := range u {
		frac := 1.0
		if len(u) > 1 {
			frac = float64(i) / float64(len(u)-1)
		}
		if !higherBetter {
			frac = 1 - frac
		}
		red, green := int(255*(1-frac)), int(255*frac)
		out[v] = fmt.Sprintf("#%02x%02x00", min(255, red+64), min(255, green+64))
	}
	return out
}

func avg(vs []float64) float64 {
	var s float64
	for _, v := range vs {
		s += v
	}
	return s / float64(len(vs))
}

func formatValue(v float64, unit string) string {
	switch unit {
	case "ns":
		return bonnie.FormatLatency(int64(v))
	case "B/s":
		return fmt.Sprintf("%.1f MiB/s", v/(1<<20))
	}
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// buildCharts draws every chart the runs have data for.
func buildCharts(runs []*compare.Run) ([]chart, error) {
	var out []chart
	add := func(title string, p *plot.Plot, err error) error {
		if err != nil {
			return fmt.Errorf("chart %q: %w", title, err)
		}
		if p == nil {
			return nil
		}
		svg, err := renderSVG(p, 6*vg.Inch, 3.2*vg.Inch)
		if err != nil {
			return fmt.Errorf("chart %q: %w", title, err)
		}
		out = append(out, chart{Title: title, SVG: template.HTML(svg)})
		return nil
	}
	keys, proto, grid := figureGrid(runs)
	for k, key := range keys {
		f := proto[key]
		if !f.HigherIsBetter {
			continue
		}
		p, err := barChart(runs, grid, k, f)
		if err := add(key+" across runs", p, err); err != nil {
			return nil, err
		}
	}
	for i, r := range runs {
		title := fmt.Sprintf("%s %s: latency percentiles", compare.RunLetter(i), r.Label)
		p, err := latencyChart(r)
		if err := add(title, p, err); err != nil {
			return nil, err
		}
		if r.Block != nil {
			p, err := seriesChart(r.Block)
			if err := add(fmt.Sprintf("%s %s: IOPS per second", compare.RunLetter(i), r.Label), p, err); err != nil {
				return nil, err
			}
			// ORION's matrices (orion.go) and sustained runs (sustained.go).
			for _, charts := range []func(string, *result.Block) ([]namedPlot, error){orionCharts, sustainedCharts} {
				ps, err := charts(compare.RunLetter(i)+" "+r.Label, r.Block)
				if err != nil {
					return nil, err
				}
				for _, np := range ps {
					if err := add(np.title, np.plot, nil); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	p, err := sweepChart(runs)
	if err := add("block-size sweep", p, err); err != nil {
		return nil, err
	}
	return out, nil
}

// line is one named line of a chart.
type line struct {
	Name string
	XY   plotter.XYs
}

// addLines adds lines to p, with point marks when points is set.
func addLines(p *plot.Plot, lines []line, points bool) error {
	var args []any
	for _, l := range lines {
		args = append(args, l.Name, l.XY)
	}
	if points {
		return plotutil.AddLinePoints(p, args...)
	}
	return plotutil.AddLines(p, args...)
}

// barValues is one column's figure for every run that has it (the mean when
// a run repeated), named by run letter.
func barValues(runs []*compare.Run, grid [][]compare.Figure, k int) ([]string, plotter.Values) {
	var vals plotter.Values
	var names []string
	for i := range runs {
		g := grid[i][k]
		if g.State != compare.Known || len(g.Values) == 0 {
			continue
		}
		vals = append(vals, avg(g.Values))
		names = append(names, compare.RunLetter(i))
	}
	return names, vals
}

// barChart is one column's figure for every run that has it.
func barChart(runs []*compare.Run, grid [][]compare.Figure, k int, f compare.Figure) (*plot.Plot, error) {
	names, vals := barValues(runs, grid, k)
	if len(vals) == 0 {
		return nil, nil
	}
	p := plot.New()
	p.Title.Text = f.Key
	p.Y.Label.Text = f.Unit
	bars, err := plotter.NewBarChart(vals, vg.Points(24))
	if err != nil {
		return nil, err
	}
	bars.Color = plotutil.Color(0)
	p.Add(bars)
	p.NominalX(names...)
	p.Y.Min = 0
	return p, nil
}

// fsPercentiles are the x positions of an fs run's latency chart.
var fsPercentiles = []string{"p50", "p90", "p99", "p99.9", "max"}

// latencyLines is each test's (fs) or job direction's (block) latency in
// microseconds: at fsPercentiles' positions for fs, at the percentile itself
// for block. Points a log axis cannot show (0) are left out.
func latencyLines(r *compare.Run) []line {
	var lines []line
	if r.FS != nil && len(r.FS.Runs) > 0 {
		for t, tr := range r.FS.Runs[0].Tests {
			l := tr.Latency
			if l.Count == 0 || l.P50Ns <= 0 {
				continue
			}
			lines = append(lines, line{result.FSTest(t).Name(), positive(plotter.XYs{{X: 0, Y: us(l.P50Ns)}, {X: 1, Y: us(l.P90Ns)},
				{X: 2, Y: us(l.P99Ns)}, {X: 3, Y: us(l.P999Ns)}, {X: 4, Y: us(l.MaxNs)}})})
		}
	}
	if r.Block != nil {
		for _, j := range r.Block.Jobs {
			for _, d := range []struct {
				name string
				dir  result.BlockDir
			}{{"read", j.Read}, {"write", j.Write}} {
				ps := d.dir.LatPercentiles()
				if d.dir.TotalIOs == 0 || len(ps) == 0 {
					continue
				}
				var xy plotter.XYs
				for _, pc := range ps {
					xy = append(xy, plotter.XY{X: pc.P, Y: us(pc.Value)})
				}
				lines = append(lines, line{j.JobName + " " + d.name, positive(xy)})
			}
		}
	}
	return lines
}

// latencyChart draws latencyLines on a log axis.
func latencyChart(r *compare.Run) (*plot.Plot, error) {
	lines := latencyLines(r)
	if len(lines) == 0 {
		return nil, nil
	}
	p := plot.New()
	p.Y.Label.Text = "latency (us)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	if r.FS != nil {
		p.X.Label.Text = "percentile (4 = max)"
		p.NominalX(fsPercentiles...)
	} else {
		p.X.Label.Text = "percentile"
	}
	return p, addLines(p, lines, true)
}

// seriesLines is each job's IOPS second by second, x in seconds from the
// start of the measurement; a job with fewer than two seconds has no line.
func seriesLines(b *result.Block) []line {
	var lines []line
	for _, j := range b.Jobs {
		if len(j.Series) < 2 {
			continue
		}
		xy := make(plotter.XYs, len(j.Series))
		for i, s := range j.Series {
			xy[i] = plotter.XY{X: float64(s.StartMs) / 1000, Y: s.IOPS}
		}
		lines = append(lines, line{j.JobName, xy})
	}
	return lines
}

// lineChart draws lines on linear axes labelled xLabel and yLabel, the y
// axis from 0; nil when there are no lines.
func lineChart(xLabel, yLabel string, lines []line, points bool) (*plot.Plot, error) {
	if len(lines) == 0 {
		return nil, nil
	}
	p := plot.New()
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Y.Min = 0
	return p, addLines(p, lines, points)
}

// seriesChart draws seriesLines.
func seriesChart(b *result.Block) (*plot.Plot, error) {
	return lineChart("second", "IOPS", seriesLines(b), false)
}

// sweepLines is bandwidth in MiB/s against log2 of the block size, for every
// bs-sweep run.
func sweepLines(runs []*compare.Run) []line {
	var lines []line
	for i, r := range runs {
		if r.Block == nil || r.Block.Profile == nil || r.Block.Profile.Name != "bs-sweep" {
			continue
		}
		var xy plotter.XYs
		for _, row := range r.Block.Profile.Rows {
			if row.BSBytes > 0 {
				xy = append(xy, plotter.XY{X: math.Log2(float64(row.BSBytes)), Y: float64(row.BWBytes) / (1 << 20)})
			}
		}
		if len(xy) > 0 {
			lines = append(lines, line{compare.RunLetter(i) + " " + r.Label, xy})
		}
	}
	return lines
}

// sweepChart draws sweepLines.
func sweepChart(runs []*compare.Run) (*plot.Plot, error) {
	return lineChart("block size (log2 bytes)", "MiB/s", sweepLines(runs), true)
}

func us(ns int64) float64 { return float64(ns) / 1e3 }

// positive drops points a log axis cannot show.
func positive(xy plotter.XYs) plotter.XYs {
	out := xy[:0]
	for _, p := range xy {
		if p.Y > 0 {
			out = append(out, p)
		}
	}
	return out
}

// renderSVG draws p as SVG and strips the XML prolog so it can be inlined.
func renderSVG(p *plot.Plot, w, h vg.Length) (string, error) {
	wt, err := p.WriterTo(w, h, "svg")
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return "", err
	}
	s := b.String()
	if i := strings.Index(s, "<svg"); i > 0 {
		s = s[i:]
	}
	return s, nil
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:">
<title>{{.Title}}</title>
<style>
body { font-family: sans-serif; margin: 1em 2em; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #888; padding: 2px 6px; text-align: right; }
th { background: #ddd; }
td.run { text-align: left; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; }
figure { margin: 0; }
figcaption { font-weight: bold; }
</style></head>
<body>
<h1>{{.Title}}</h1>
<h2>Runs</h2>
<table id="runs"><tr><th>run</th><th>label</th><th>source</th><th>host</th><th>target</th><th>started</th></tr>
{{range .Runs}}<tr class="run"><td class="run">{{.Letter}}</td><td class="run">{{.Label}}</td><td class="run">{{.Source}}</td><td class="run">{{.Host}}</td><td class="run">{{.Target}}</td><td class="run">{{.Started}}</td></tr>
{{end}}</table>
<h2>Figures</h2>
<table id="figures"><tr><th>run</th>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
<tr><th></th>{{range .Units}}<th>{{.}}</th>{{end}}</tr>
{{range $i, $row := .Rows}}<tr class="figures"><td class="run">{{(index $.Runs $i).Letter}}</td>{{range $row}}<td{{if .Color}} style="background: {{.Color}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</table>
<h2>Charts</h2>
<div class="charts">
{{range .Charts}}<figure class="chart"><figcaption>{{.Title}}</figcaption>{{.SVG}}</figure>
{{end}}</div>
</body></html>
`))
