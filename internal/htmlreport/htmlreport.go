// Package htmlreport renders runs as one self-contained HTML page, laid out
// like OpenBenchmarking.org's result pages: the runs and what they ran on,
// an overall geometric mean, a horizontal bar chart per test with the best
// run marked and the others as a percentage of it, compact figures tables
// with each column's change against the first run and its winner, then
// latency percentile curves, per-second series and block-size sweeps
// drawn with gonum.org/v1/plot. A page of one run shows that run's own
// figures and curves, with nothing to compare it to. A block tool's run
// gets the page its users know instead (tools.go): CrystalDiskMark's
// window, ORION's summary and heat maps, Iometer's results display,
// CopySpdBench's table, with every figure in a table at the end. Colours
// are Okabe and Ito's, which colour-blind readers tell apart. The page
// loads nothing: no scripts, fonts or images from anywhere, so it can be
// mailed or opened offline.
package htmlreport

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/internal/verdict"
	"github.com/clydebench/clyde/result"
)

func init() {
	// Sans-serif, as the rest of the page; the page's style sheet names
	// the system's sans-serif fonts over it.
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
}

// Write renders runs (all of one kind) as an HTML page.
func Write(w io.Writer, runs []*compare.Run) error {
	p, err := buildPage(runs)
	if err != nil {
		return err
	}
	return pageTemplate.Execute(w, p)
}

// buildPage is the page's data, with the charts drawn.
func buildPage(runs []*compare.Run) (*pageData, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("no runs to render")
	}
	kind := runs[0].Kind()
	for _, r := range runs[1:] {
		if r.Kind() != kind {
			return nil, fmt.Errorf("cannot put an %s run (%s) and a %s run (%s) in one page", kind, runs[0].Label, r.Kind(), r.Label)
		}
	}
	p := &pageData{Kind: kind, Single: len(runs) == 1, Tool: pageTool(runs)}
	switch {
	case p.Tool != "":
		p.Title = toolTitle(p.Tool, runs)
	case p.Single:
		p.Title = fmt.Sprintf("clyde %s: one run", kind)
	default:
		p.Title = fmt.Sprintf("clyde %s: %d runs compared", kind, len(runs))
	}
	if err := buildTools(p, runs); err != nil {
		return nil, err
	}
	buildHosts(p, runs)
	for i, r := range runs {
		p.Runs = append(p.Runs, describeRun(i, r))
	}
	shortNames(p.Runs)
	cols := columns(runs, p.Runs)
	if p.Single {
		p.Tables = singleTables(cols)
	} else {
		p.Summary = summarize(cols, p.Runs)
		p.Bars = bars(cols, p.Runs, columnTitle)
		p.Tables = tables(cols, p.Runs)
	}
	p.Notes = notes(cols, p.Single)
	if n := compare.ParamsNote(runs); n != "" {
		p.Notes = append(p.Notes, n)
	}
	p.Notes = append(p.Notes, cacheNotes(runs, p.Runs)...)
	charts, err := buildCharts(runs, p.Tool != "")
	if err != nil {
		return nil, err
	}
	p.Charts = charts
	return p, nil
}

// cacheNotes are the runs' notes that their figures are a page cache's
// (result.Block.CacheNote, result.FS.CacheNote), which a page read alone
// must not hide: each run's, named by its letter beside others.
func cacheNotes(runs []*compare.Run, infos []runInfo) []string {
	var out []string
	for i, r := range runs {
		n := ""
		switch {
		case r.Block != nil:
			n = r.Block.CacheNote
		case r.FS != nil:
			n = r.FS.CacheNote
		}
		if n == "" {
			continue
		}
		if len(runs) > 1 {
			n = infos[i].Letter + ": " + n
		}
		out = append(out, n)
	}
	return out
}

func describeRun(i int, r *compare.Run) runInfo {
	prov := r.Provenance()
	ri := runInfo{Letter: compare.RunLetter(i), Color: runHex(i), Name: r.Name(), Label: r.Label, Source: r.Source,
		Host: r.Host(), Target: r.Target(), FSType: prov.Filesystem.Type, MountOptions: prov.Filesystem.MountOptions,
		Device: prov.Filesystem.DeviceModel, Flags: r.KeyFlags()}
	if n := toolRunName(r); n != "" {
		ri.Name = n
	}
	if ri.FSType != "" {
		ri.FSNote = prov.Filesystem.Note
	}
	if t := prov.StartTime; !t.IsZero() {
		ri.Started = t.Format("2006-01-02 15:04")
	}
	return ri
}

// columnTitle names a column for its chart: an fs test with its phase
// ("put_block: block write"), anything else by its key.
func columnTitle(key string) string {
	if t, ok := result.FSTestNamed(key); ok {
		return key + ": " + t.Phase()
	}
	return key
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

func avg(vs []float64) float64 {
	var s float64
	for _, v := range vs {
		s += v
	}
	return s / float64(len(vs))
}

// chart is one drawn chart and the data behind it.
type chart struct {
	// Section is the page section the chart goes in; charts of one
	// section sit together, sections in the order buildCharts adds them.
	Section string        `json:"section"`
	Title   string        `json:"title"`
	SVG     template.HTML `json:"-"`
	XLabel  string        `json:"x_label,omitempty"`
	YLabel  string        `json:"y_label,omitempty"`
	Lines   []line        `json:"lines,omitempty"`
	// Legend names each line's colour, below the chart (never over the
	// data).
	Legend []legendItem `json:"-"`
	// Scale is a heat map's colour legend, shown above it.
	Scale *colorScale `json:"scale,omitempty"`
}

// legendItem is one entry of a chart's legend.
type legendItem struct {
	Name, Color, Dash string
}

// Chart sections, in page order. A new kind of chart (ORION's load-point
// heat map, a sustained-write series) adds its own section name and its
// charts in buildCharts, from a file of its own.
const (
	sectionLatency   = "Latency percentiles"
	sectionSeries    = "Per second"
	sectionOrion     = "ORION load matrix"
	sectionSustained = "Sustained load"
	sectionSweep     = "Block-size sweep"
	sectionIometer   = "Iometer cycling"
)

// Chart sizes: small multiples four to a row of a 1280-pixel page, and
// wide charts two to a row.
const (
	smallW, smallH = 3.3 * vg.Inch, 2.4 * vg.Inch
	wideW, wideH   = 6 * vg.Inch, 3.2 * vg.Inch
)

// buildCharts draws every chart the runs have data for, section by section.
// A tool's page (tool) has its own charts in its view, and no chart per
// job: an ORION run has a hundred jobs, and their curves buried the
// matrix.
func buildCharts(runs []*compare.Run, tool bool) ([]chart, error) {
	var out []chart
	add := func(c chart, p *plot.Plot, err error, w, h vg.Length) error {
		if err != nil {
			return fmt.Errorf("chart %q: %w", c.Title, err)
		}
		if p == nil {
			return nil
		}
		svg, err := renderSVG(p, w, h)
		if err != nil {
			return fmt.Errorf("chart %q: %w", c.Title, err)
		}
		c.SVG = template.HTML(svg)
		for _, l := range c.Lines {
			c.Legend = append(c.Legend, legendItem{Name: l.Name, Color: runHex(l.Color), Dash: dashCSS(l.Color)})
		}
		out = append(out, c)
		return nil
	}
	w, h := smallW, smallH
	if len(runs) == 1 {
		w, h = wideW, wideH // a single run's lines share a chart or two
	}
	if tool {
		return out, nil
	}
	for _, g := range latencyGroups(runs) {
		p, err := latencyChart(g.lines, runs[0].FS != nil, g.unit)
		c := chart{Section: sectionLatency, Title: g.title, XLabel: "percentile", YLabel: g.unit, Lines: g.lines}
		if err := add(c, p, err, w, h); err != nil {
			return nil, err
		}
	}
	for _, g := range seriesGroups(runs) {
		p, err := lineChart("second", "IOPS", g.lines, false)
		c := chart{Section: sectionSeries, Title: g.title + ": IOPS", XLabel: "second", YLabel: "IOPS", Lines: g.lines}
		if err := add(c, p, err, smallW, smallH); err != nil {
			return nil, err
		}
	}
	// Sustained runs (sustained.go); ORION's matrices are in its view
	// (orion.go).
	for i, r := range runs {
		if r.Block == nil {
			continue
		}
		ps, err := sustainedCharts(compare.RunLetter(i)+" "+r.Label, r.Block)
		if err != nil {
			return nil, err
		}
		for _, np := range ps {
			if err := add(chart{Section: sectionSustained, Title: np.title}, np.plot, nil, wideW, wideH); err != nil {
				return nil, err
			}
		}
	}
	lines := sweepLines(runs)
	p, err := sweepChart(runs)
	c := chart{Section: sectionSweep, Title: "bandwidth by block size", XLabel: "block size (log2 bytes)", YLabel: "MiB/s", Lines: lines}
	if err := add(c, p, err, wideW, wideH); err != nil {
		return nil, err
	}
	return out, nil
}

// line is one named line of a chart; Color is its palette index (the
// run's, or the test's on a single run's page).
type line struct {
	Name  string      `json:"name"`
	Color int         `json:"color"`
	XY    plotter.XYs `json:"points"`
}

// glyphs mark the points of line i, so that lines differ in shape as well
// as colour.
var glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.RingGlyph{},
	draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}

// addLines adds lines to p in their palette colours, with point marks
// when points is set. There is no legend in the plot: the page prints one
// under the chart, where it hides no data.
func addLines(p *plot.Plot, lines []line, points bool) error {
	for _, l := range lines {
		ln, err := plotter.NewLine(l.XY)
		if err != nil {
			return err
		}
		ln.Color = runColor(l.Color)
		ln.Width = vg.Points(1.5)
		ln.Dashes = dashes(l.Color)
		p.Add(ln)
		if points {
			sc, err := plotter.NewScatter(l.XY)
			if err != nil {
				return err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: runColor(l.Color), Radius: vg.Points(2.5), Shape: glyphs[l.Color%len(glyphs)]}
			p.Add(sc)
		}
	}
	return nil
}

// newPlot is a plot with the page's look: light grid lines, axis labels.
func newPlot(xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = palette[6], palette[6]
	g.Vertical.Width, g.Horizontal.Width = vg.Points(0.2), vg.Points(0.2)
	p.Add(g)
	return p
}

// fsPercentiles are the percentiles an fs run's latency curve has, and
// fsPercentileX their positions on the nines axis (max drawn at four
// nines).
var (
	fsPercentiles = []string{"p50", "p90", "p99", "p99.9", "max"}
	fsPercentileX = []float64{nines(50), nines(90), nines(99), nines(99.9), 4}
)

// nines places percentile p on a latency axis that gives each nine the
// same room: 90 at 1, 99 at 2, 99.9 at 3, as HdrHistogram's plots do.
func nines(p float64) float64 {
	if p >= 100 {
		return 6
	}
	return -math.Log10(1 - p/100)
}

// latencyLines is each test's (fs) or job direction's (block) latency in
// nanoseconds, at nines(percentile): p50, p90, p99, p99.9 and the maximum
// for fs, every percentile the result has for block. Points a log axis
// cannot show (0) are left out. Lines are coloured by their order.
func latencyLines(r *compare.Run) []line {
	var lines []line
	if r.FS != nil && len(r.FS.Runs) > 0 {
		for t, tr := range r.FS.Runs[0].Tests {
			l := tr.Latency
			if l.Count == 0 || l.P50Ns <= 0 {
				continue
			}
			vals := []int64{l.P50Ns, l.P90Ns, l.P99Ns, l.P999Ns, l.MaxNs}
			var xy plotter.XYs
			for k, v := range vals {
				xy = append(xy, plotter.XY{X: fsPercentileX[k], Y: float64(v)})
			}
			lines = append(lines, line{Name: result.FSTest(t).Name(), Color: len(lines), XY: positive(xy)})
		}
	}
	if r.Block != nil {
		for _, j := range r.Block.Jobs {
			if j.Warmup {
				continue
			}
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
					xy = append(xy, plotter.XY{X: nines(pc.P), Y: float64(pc.Value)})
				}
				lines = append(lines, line{Name: j.JobName + " " + d.name, Color: len(lines), XY: positive(xy)})
			}
		}
	}
	return lines
}

// chartGroup is the lines of one chart.
type chartGroup struct {
	title, unit string
	lines       []line
}

// latencyGroups are the latency charts: with several runs, one chart per
// test or job direction with a line per run in the run's colour; with one
// run, its lines together (fs: the I/O tests and the file tests apart).
// The values are scaled to one unit per chart.
func latencyGroups(runs []*compare.Run) []chartGroup {
	var groups []chartGroup
	if len(runs) == 1 {
		lines := latencyLines(runs[0])
		if runs[0].FS != nil {
			var io, files []line
			for _, l := range lines {
				if isIOTest(l.Name) {
					io = append(io, l)
				} else {
					files = append(files, l)
				}
			}
			for i := range files {
				files[i].Color = i // each chart its own colours from the first
			}
			groups = append(groups, chartGroup{title: "I/O tests", lines: io}, chartGroup{title: "file tests", lines: files})
		} else {
			groups = append(groups, chartGroup{title: "completion latency", lines: lines})
		}
	} else {
		names := runLabels(runs)
		index := map[string]int{}
		for i, r := range runs {
			for _, l := range latencyLines(r) {
				gi, ok := index[l.Name]
				if !ok {
					gi = len(groups)
					index[l.Name] = gi
					groups = append(groups, chartGroup{title: l.Name})
				}
				l.Name, l.Color = names[i], i
				groups[gi].lines = append(groups[gi].lines, l)
			}
		}
	}
	var out []chartGroup
	for _, g := range groups {
		if len(g.lines) == 0 {
			continue
		}
		var ys []float64
		for _, l := range g.lines {
			for _, p := range l.XY {
				ys = append(ys, p.Y)
			}
		}
		unit, scale := compare.DisplayUnit("ns", ys)
		for i := range g.lines {
			xy := make(plotter.XYs, len(g.lines[i].XY))
			for k, p := range g.lines[i].XY {
				xy[k] = plotter.XY{X: p.X, Y: p.Y * scale}
			}
			g.lines[i].XY = xy
		}
		g.unit = "latency (" + unit + ")"
		out = append(out, g)
	}
	return out
}

func isIOTest(name string) bool {
	t, ok := result.FSTestNamed(name)
	return ok && t.IsIO()
}

// runLabels are the runs' letters and short names, as bars and legends
// show them: "A ext4-loop".
func runLabels(runs []*compare.Run) []string {
	infos := make([]runInfo, len(runs))
	for i, r := range runs {
		infos[i] = describeRun(i, r)
	}
	shortNames(infos)
	out := make([]string, len(runs))
	for i, ri := range infos {
		out[i] = ri.Letter + " " + ri.Short
	}
	return out
}

// latencyChart draws latency lines on a log axis against percentiles on
// the nines axis.
func latencyChart(lines []line, fs bool, yLabel string) (*plot.Plot, error) {
	if len(lines) == 0 {
		return nil, nil
	}
	p := newPlot("percentile", yLabel)
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{}
	if fs {
		var ticks []plot.Tick
		for k, name := range fsPercentiles {
			ticks = append(ticks, plot.Tick{Value: fsPercentileX[k], Label: name})
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = 0, 4.4 // room for the "max" label
	} else {
		p.X.Tick.Marker = plot.ConstantTicks{{Value: nines(50), Label: "50"}, {Value: nines(90), Label: "90"},
			{Value: nines(99), Label: "99"}, {Value: nines(99.9), Label: "99.9"}, {Value: nines(99.99), Label: "99.99"}}
	}
	return p, addLines(p, lines, true)
}

// logTicks labels the powers of ten, as plot.LogTicks does; where the axis
// holds fewer than two of them (latency lines within one decade), it labels
// 1, 2 and 5 times each power instead, and where even those are fewer than
// two, both ends, so a chart never has an axis without numbers.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	labelled := 0
	for _, t := range ticks {
		if t.Label != "" && t.Value >= lo && t.Value <= hi {
			labelled++ // the axis draws only what lies in its range
		}
	}
	if labelled >= 2 || lo <= 0 || hi <= lo {
		return ticks
	}
	var out []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			if v := m * math.Pow(10, e); v >= lo && v <= hi {
				out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
			}
		}
	}
	if len(out) >= 2 {
		return out
	}
	return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 3, 64)}, {Value: hi, Label: strconv.FormatFloat(hi, 'g', 3, 64)}}
}

// seriesLines is each job's IOPS second by second, x in seconds from the
// start of the measurement; a job with fewer than two seconds has no line.
func seriesLines(b *result.Block) []line {
	var lines []line
	for _, j := range b.Jobs {
		if len(j.Series) < 2 || j.Warmup {
			continue
		}
		xy := make(plotter.XYs, len(j.Series))
		for i, s := range j.Series {
			xy[i] = plotter.XY{X: float64(s.StartMs) / 1000, Y: s.IOPS}
		}
		lines = append(lines, line{Name: j.JobName, Color: len(lines), XY: xy})
	}
	return lines
}

// seriesGroups are the per-second charts: one per job, a line per run.
func seriesGroups(runs []*compare.Run) []chartGroup {
	var groups []chartGroup
	names := runLabels(runs)
	index := map[string]int{}
	for i, r := range runs {
		if r.Block == nil {
			continue
		}
		for _, l := range seriesLines(r.Block) {
			gi, ok := index[l.Name]
			if !ok {
				gi = len(groups)
				index[l.Name] = gi
				groups = append(groups, chartGroup{title: l.Name})
			}
			l.Name, l.Color = names[i], i
			groups[gi].lines = append(groups[gi].lines, l)
		}
	}
	return groups
}

// lineChart draws lines on linear axes labelled xLabel and yLabel, the y
// axis from 0; nil when there are no lines.
func lineChart(xLabel, yLabel string, lines []line, points bool) (*plot.Plot, error) {
	if len(lines) == 0 {
		return nil, nil
	}
	p := newPlot(xLabel, yLabel)
	p.Y.Min = 0
	return p, addLines(p, lines, points)
}

// sweepLines is bandwidth in MiB/s against log2 of the block size, for every
// bs-sweep run.
func sweepLines(runs []*compare.Run) []line {
	var lines []line
	names := runLabels(runs)
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
			lines = append(lines, line{Name: names[i], Color: i, XY: xy})
		}
	}
	return lines
}

// sweepChart draws sweepLines.
func sweepChart(runs []*compare.Run) (*plot.Plot, error) {
	return lineChart("block size (log2 bytes)", "MiB/s", sweepLines(runs), true)
}

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

// Sections groups the charts by section, in the order they came.
func (p *pageData) Sections() []sectionView {
	var out []sectionView
	index := map[string]int{}
	for _, c := range p.Charts {
		i, ok := index[c.Section]
		if !ok {
			i = len(out)
			index[c.Section] = i
			out = append(out, sectionView{Title: c.Section})
		}
		out[i].Charts = append(out[i].Charts, c)
	}
	return out
}

// FiguresTitle heads a tool page's closing table of every figure, as
// compare and the history key them.
func (p *pageData) FiguresTitle() string {
	n := 0
	for _, t := range p.Tables {
		n += len(t.Columns)
	}
	what := "fio's job names"
	switch p.Tool {
	case toolCDM:
		what = "CrystalDiskMark's row names"
	case toolCopy:
		what = "set and method"
	}
	return fmt.Sprintf("All %d figures, as compare and the history key them (%s)", n, what)
}

// OpenFigures says a tool page's closing figures start open: on a page
// comparing CrystalDiskMark or copy runs, whose figures carry the tool's
// own names, the bars and tables are the comparison; ORION's and
// Iometer's are a job's fio names, hundreds of them, and start closed.
func (p *pageData) OpenFigures() bool {
	return !p.Single && (p.Tool == toolCDM || p.Tool == toolCopy)
}

type sectionView struct {
	Title  string
	Charts []chart
}

// SummarySVG draws the overall geometric mean's bars.
func (p *pageData) SummarySVG() template.HTML {
	s := p.Summary
	b := barData{Title: "overall", Unit: "% of " + p.Runs[0].Letter, Bars: s.Bars}
	rates := len(s.Columns) + len(s.Left)
	return barChart(b, func(i int) string {
		return fmt.Sprintf("won %d of %d rate columns", s.Runs[i].Wins, rates)
	})
}

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"join":    func(ss []string) string { return strings.Join(ss, ", ") },
	"secs":    func(ns float64) float64 { return ns / 1e9 },
	"ruleURL": func() string { return verdict.RuleURL },
	"ruleRef": func() string { return verdict.RuleRef },
	// barSVG draws a bar chart (the "barchart" template's)
	"barSVG": func(b barData) template.HTML { return barChart(b, nil) },
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: "Liberation Sans", Arimo, Arial, Helvetica, "DejaVu Sans", sans-serif; color: #1a1a1a; margin: 16px auto; padding: 0 16px; max-width: 1280px; font-size: 14px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ccc; padding-bottom: 3px; }
h3 { font-size: 14px; margin: 12px 0 4px; }
.sub { color: #555; font-size: 12px; font-weight: normal; }
table { border-collapse: collapse; margin: 6px 0 14px; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 8px; vertical-align: top; }
th { background: #f2f2f2; text-align: left; font-weight: bold; }
table.figures th.col { text-align: right; max-width: 11em; }
table.figures td.num, table.single td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.best { font-weight: bold; background: #e6f0fa; }
td.short { font-style: italic; }
td.missing { color: #777; }
td.flags code, .nowrap { white-space: nowrap; }
.pair { display: flex; flex-wrap: wrap; gap: 0 32px; align-items: flex-start; }
.vs { display: block; font-size: 11px; color: #555; font-weight: normal; }
tr.winner td { border-top: 2px solid #999; font-size: 12px; }
.swatch { display: inline-block; width: 11px; height: 11px; margin-right: 5px; vertical-align: -1px; border-radius: 2px; }
.grid { display: grid; gap: 10px 18px; }
.grid.bars { grid-template-columns: repeat(auto-fill, minmax(600px, 1fr)); }
.grid.small { grid-template-columns: repeat(auto-fill, minmax(290px, 1fr)); }
.grid.wide { grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); }
figure { margin: 0; }
figcaption { font-weight: bold; margin-bottom: 2px; }
figure svg { max-width: 100%; height: auto; }
figure svg text { font-family: "Liberation Sans", Arimo, Arial, Helvetica, "DejaVu Sans", sans-serif !important; }
svg.bars text { font-size: 12px; dominant-baseline: auto; }
svg.bars .label { text-anchor: end; fill: #222; }
svg.bars .value .num { fill: #111; }
svg.bars .value.best .num { font-weight: bold; }
svg.bars .rel { fill: #555; font-size: 11px; }
svg.bars .missing { fill: #777; font-style: italic; }
svg.bars .axis { stroke: #888; stroke-width: 1; }
.legend { font-size: 12px; margin: 2px 0 0; padding: 0; list-style: none; }
.legend li { display: inline-block; margin-right: 12px; }
.legend .sample { display: inline-block; width: 18px; height: 0; border-top-width: 3px; margin-right: 4px; vertical-align: 3px; }
.notes { color: #444; font-size: 12px; }
.nowinner { display: block; font-size: 11px; font-weight: normal; color: #8a4b00; }
td .ci { color: #555; font-size: 11px; }
.scroll { overflow-x: auto; max-width: 100%; }
td.flags { min-width: 15em; }
td.flags code { white-space: normal; overflow-wrap: break-word; }
td.mount { overflow-wrap: anywhere; min-width: 9em; max-width: 18em; }
table.single td:first-child { overflow-wrap: anywhere; max-width: 40em; }
details.all-figures > summary { font-size: 17px; font-weight: bold; margin: 28px 0 8px; cursor: pointer; }
.tool { margin-bottom: 18px; }
.settings th { background: none; font-weight: normal; color: #555; padding: 1px 10px 1px 0; border: none; }
.settings td { padding: 1px 0; border: none; }
.topbar { display: flex; flex-wrap: wrap; gap: 6px; margin: 8px 0 4px; }
.topbar span { border: 1px solid #8aa58a; background: #eef4ee; border-radius: 3px; padding: 2px 10px; }
table.cdm { border-collapse: separate; border-spacing: 4px; margin: 0; }
table.cdm th { text-align: center; background: none; font-size: 15px; }
table.cdm th.test { background: #2f6f3a; color: #fff; font-size: 15px; padding: 8px 12px; vertical-align: middle; border-radius: 3px; line-height: 1.25; }
table.cdm td.fig { background: #f3f7f3; border: 1px solid #b8cdb8; border-radius: 3px; text-align: right; min-width: 7.5em; padding: 4px 10px; }
table.cdm td.fig .mbps { display: block; font-size: 26px; font-weight: bold; font-variant-numeric: tabular-nums; color: #111; }
table.cdm td.fig .more { display: block; font-size: 11px; color: #555; font-variant-numeric: tabular-nums; }
table.cdm td.ratio { text-align: center; vertical-align: middle; font-size: 16px; font-weight: bold; color: #2f4f8f; border-bottom: none; padding: 3px 4px; }
table.cdm th.ratio { font-size: 12px; font-weight: normal; color: #555; }
table.cdm td.notrun { color: #777; }
.peaks { display: flex; flex-wrap: wrap; gap: 10px; margin: 8px 0 12px; }
.peak { border: 1px solid #c9d3e0; background: #f5f8fc; border-radius: 4px; padding: 8px 14px; min-width: 14em; }
.iometer .peak { min-width: 10em; padding: 6px 10px; }
.peak .name { display: block; font-size: 12px; color: #444; }
.peak .big { font-size: 26px; font-weight: bold; font-variant-numeric: tabular-nums; }
.peak .at { display: block; font-size: 12px; color: #444; }
.scale { display: flex; align-items: center; gap: 6px; font-size: 11px; margin: 2px 0 4px; }
.scale .ramp { display: inline-flex; border: 1px solid #999; }
.scale .ramp span { display: inline-block; width: 14px; height: 12px; }
table.results td.num, table.copyspd td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.results th { font-size: 12px; text-align: right; }
table.results tr.spec th { text-align: left; font-size: 13px; background: #e8eef6; }
table.results td.iops { font-weight: bold; font-size: 15px; }
table.copyspd td.mbps { font-weight: bold; font-size: 15px; }
table.copyspd th.num { text-align: right; }
table.copyspd .clone { font-weight: normal; font-size: 12px; color: #555; }
.stopped { color: #a33; font-weight: bold; }
</style></head>
<body>
<h1>{{.Title}}</h1>
{{range .CDM}}{{$w := .}}<section class="tool cdm" data-run="{{.Run}}">
<h2>CrystalDiskMark{{if gt (len $.Runs) 1}}: run {{.Run}}{{end}} <span class="sub">MB/s = 1,000,000 bytes/s; {{.Kept}}</span></h2>
<div class="topbar"><span class="passes" title="passes">{{.Passes}}</span><span class="size" title="test size">{{.Size}}</span>{{with .Drive}}<span class="drive" title="drive: in use when the tests began">{{.}}</span>{{end}}<span>MB/s</span>{{if .Both}}<span>Random | 0Fill</span>{{end}}</div>
<div class="scroll"><table class="cdm" id="cdm-{{.Run}}">
<tr><th></th>{{range .Modes}}<th colspan="{{if $w.Both}}3{{else}}1{{end}}">{{.Title}} (MB/s)</th>{{end}}</tr>
{{if .Both}}<tr><th></th>{{range .Modes}}<th>Random</th><th>0Fill</th><th class="ratio" title="0Fill MB/s over Random MB/s">ratio</th>{{end}}</tr>
{{end}}{{range .Rows}}<tr data-test="{{.Test}}"><th class="test">{{.Test}}</th>{{range .Cells}}{{$mode := .Mode}}{{range .Figures}}<td class="fig{{if not .Ran}} notrun{{end}}" data-mode="{{$mode}}" data-data="{{.Data}}"{{if .Ran}} data-mbps="{{.MBps}}" data-iops="{{.IOPS}}" data-latency-us="{{.LatencyUs}}"{{end}}><span class="mbps">{{.MBpsText}}</span>{{if .Ran}}<span class="more"><span class="iops">{{.IOPSText}}</span> IOPS</span><span class="more"><span class="lat">{{.LatText}}</span> µs</span>{{end}}</td>{{end}}{{if .RatioText}}<td class="ratio" data-mode="{{$mode}}" data-ratio="{{.Ratio}}">{{.RatioText}}</td>{{else if gt (len .Figures) 1}}<td class="ratio">-</td>{{end}}{{end}}</tr>
{{end}}</table></div>
{{with .Stopped}}<p class="stopped">{{.}}: only the tests that ran are shown.</p>{{end}}
<table class="settings">{{range .Settings}}<tr><th>{{.Name}}:</th><td>{{.Value}}</td></tr>{{end}}</table>
</section>
{{end}}{{range .Orion}}<section class="tool orion" data-run="{{.Run}}">
<h2>ORION summary{{if gt (len $.Runs) 1}}: run {{.Run}}{{end}} <span class="sub">test {{.TestName}}; MBPS = 2^20 bytes/s, as ORION's</span></h2>
{{range .Sets}}<h3>Small IO size {{.SizeSmallKiB}} KB</h3>
<div class="peaks">{{range .Peaks}}<div class="peak" data-key="{{.Key}}" data-value="{{.Value}}" data-small="{{.Small}}" data-large="{{.Large}}"><span class="name">{{.Name}}</span><span class="big">{{.Text}}</span> {{.Unit}}<span class="at">@ Small={{.Small}} and Large={{.Large}}</span></div>{{end}}</div>
<div class="grid wide">{{range .Maps}}{{template "chart" .}}{{end}}</div>
{{if .Curves}}<h3>Per load level <span class="sub">a line per load of the other kind of I/O</span></h3>
<div class="grid wide">{{range .Curves}}{{template "chart" .}}{{end}}</div>{{end}}
{{end}}<table class="settings"><tr><th>Commandline:</th><td><code>{{.Command}}</code></td></tr>{{range .Settings}}<tr><th>{{.Name}}:</th><td>{{.Value}}</td></tr>{{end}}</table>
</section>
{{end}}{{range .Iometer}}<section class="tool iometer" data-run="{{.Run}}">
<h2>Iometer results display{{if gt (len $.Runs) 1}}: run {{.Run}}{{end}}</h2>
<p>Test setup <b class="icf">{{.Source}}</b>{{with .Description}}: {{.}}{{end}}. Run Time {{.RunTime}}, Ramp Up Time {{.RampTime}}{{with .Cycling}}, cycling {{.}}{{end}}. <span class="sub">MBps in 10^6 (Decimal) and 2^20 (Binary) bytes/s, response times in ms.</span></p>
{{with .Best}}<div class="peaks best" data-spec="{{.Spec}}" data-outstanding="{{.OutstandingIOs}}"><div class="peak" data-key="iops" data-value="{{.IOPS}}"><span class="name">Total I/Os per Second</span><span class="big">{{printf "%.2f" .IOPS}}</span></div><div class="peak" data-key="mbps" data-value="{{.MBps}}"><span class="name">Total MBs per Second (Decimal)</span><span class="big">{{printf "%.2f" .MBps}}</span></div><div class="peak" data-key="avg" data-value="{{.AvgMs}}"><span class="name">Average I/O Response Time (ms)</span><span class="big">{{printf "%.4f" .AvgMs}}</span></div><div class="peak" data-key="max" data-value="{{.MaxMs}}"><span class="name">Maximum I/O Response Time (ms)</span><span class="big">{{printf "%.4f" .MaxMs}}</span></div><div class="peak" data-key="cpu" data-value="{{.CPUPct}}"><span class="name">% CPU Utilization (total)</span><span class="big">{{if .CPUKnown}}{{printf "%.2f" .CPUPct}}{{else}}-{{end}}</span></div><div class="peak" data-key="errors" data-value="{{.Errors}}"><span class="name">Total Error Count</span><span class="big">{{.Errors}}</span></div></div>
<p class="sub">Above: the test with the most Total I/Os per Second, {{.Spec}} at {{.OutstandingIOs}} outstanding I/O(s) per worker. Every test:</p>{{end}}
<div class="scroll"><table class="results" id="iometer-{{.Run}}"><tr><th>Workers</th><th># of Outstanding I/Os</th><th>Total I/Os per Second</th><th>Read IOps</th><th>Write IOps</th><th>MBps (Decimal)</th><th>MBps (Binary)</th><th>Average Response Time</th><th>Maximum Response Time</th><th>% CPU Utilization</th><th>Errors</th></tr>
{{range .Specs}}<tr class="spec"><th colspan="11">{{.Name}}</th></tr>
{{range .Tests}}<tr class="test" data-spec="{{.Spec}}" data-outstanding="{{.OutstandingIOs}}"><td class="num">{{.Workers}}</td><td class="num">{{.OutstandingIOs}}</td><td class="num iops" data-value="{{.IOPS}}">{{printf "%.2f" .IOPS}}</td><td class="num">{{printf "%.2f" .ReadIOPS}}</td><td class="num">{{printf "%.2f" .WriteIOPS}}</td><td class="num mbps" data-value="{{.MBps}}">{{printf "%.2f" .MBps}}</td><td class="num">{{printf "%.2f" .MBpsBinary}}</td><td class="num avg" data-value="{{.AvgMs}}">{{printf "%.4f" .AvgMs}}</td><td class="num max" data-value="{{.MaxMs}}">{{printf "%.4f" .MaxMs}}</td><td class="num cpu">{{if .CPUKnown}}{{printf "%.2f" .CPUPct}}{{else}}-{{end}}</td><td class="num">{{.Errors}}</td></tr>
{{end}}{{end}}</table></div>
{{if .Charts}}<div class="grid wide">{{range .Charts}}{{template "chart" .}}{{end}}</div>{{end}}
<p class="notes">% CPU Utilization: {{.CPUScope}}.{{range .Ignored}}<br>ignored: {{.}}{{end}}</p>
</section>
{{end}}{{range .Copy}}<section class="tool copy" data-run="{{.Run}}">
<h2>CopySpdBench{{if gt (len $.Runs) 1}}: run {{.Run}}{{end}} <span class="sub">{{.Target}}; MB/s = 10^6 bytes/s; {{.Sync}}; {{.Buffer}} data</span></h2>
<div class="scroll"><table class="copyspd" id="copy-{{.Run}}"><tr><th>test</th><th>method</th><th class="num">files</th><th class="num">time</th><th class="num">MB/s</th><th class="num">files/s</th><th class="num">p99 per file</th><th>verified</th><th>sources cold</th></tr>
{{range .Rows}}<tr data-set="{{.Set}}" data-method="{{.Method}}"><td class="nowrap">{{.Set}}</td><td>{{.Method}}</td><td class="num">{{.Files}}</td><td class="num time">{{.Time}}</td><td class="num mbps"{{if not .Clone}} data-value="{{.MBps}}"{{end}}>{{if .Clone}}<span class="clone">{{.MBpsText}}</span>{{else}}{{.MBpsText}}{{end}}</td><td class="num">{{if .Clone}}-{{else}}{{printf "%.1f" .FilesPerSec}}{{end}}</td><td class="num">{{.P99}}</td><td class="verified">{{if .Verified}}yes{{else}}NO{{end}}</td><td>{{if .Cold}}yes{{else}}no{{end}}</td></tr>
{{end}}</table></div>
{{range .Unavailable}}<p class="notes">not available: {{.}}</p>{{end}}
</section>
{{end}}{{range .Hosts}}<section class="hosts" data-run="{{.Run}}">
<h2>Hosts{{if gt (len $.Runs) 1}}: run {{.Run}}{{end}} <span class="sub">{{.Ranks}} ranks on {{.Hosts}} host(s) under {{.Launcher}}; each bar is a host's ranks' items over its slowest rank's time</span></h2>
<div class="grid bars">
{{range .Bars}}{{template "barchart" .}}{{end}}</div>
</section>
{{end}}
<h2>Runs</h2>
<div class="scroll"><table id="runs"><tr><th>run</th><th>label</th><th>host</th><th>filesystem</th><th>mount options</th><th>device</th><th>size and flags</th><th>date</th><th>from</th></tr>
{{range .Runs}}<tr class="run" data-run="{{.Letter}}"><td><span class="swatch" style="background: {{.Color}}"></span>{{.Letter}}</td><td class="nowrap">{{.Name}}</td><td class="host">{{.Host}}</td><td class="fstype">{{or .FSType "-"}}{{with .FSNote}}<span class="vs">{{.}}</span>{{end}}</td><td class="mount">{{or .MountOptions "-"}}</td><td class="device">{{or .Device "-"}}</td><td class="flags"><code>{{.Flags}}</code></td><td class="date nowrap">{{or .Started "-"}}</td><td>{{.Label}} <span class="sub">{{.Source}}{{if .Target}}, {{.Target}}{{end}}</span></td></tr>
{{end}}</table></div>
{{if .Tool}}{{range .Sections}}<h2>{{.Title}}</h2>
<div class="grid {{if or (eq .Title "Block-size sweep") $.Single}}wide{{else}}small{{end}}">
{{range .Charts}}{{template "chart" .}}{{end}}</div>
{{end}}
<details class="all-figures"{{if $.OpenFigures}} open{{end}}><summary>{{$.FiguresTitle}}</summary>
{{template "figures" .}}</details>
{{else}}{{template "figures" .}}{{range .Sections}}<h2>{{.Title}}</h2>
<div class="grid {{if or (eq .Title "Block-size sweep") $.Single}}wide{{else}}small{{end}}">
{{range .Charts}}{{template "chart" .}}{{end}}</div>
{{end}}
{{end}}{{if .Notes}}<h2>Notes</h2>
<ul class="notes">{{range .Notes}}<li>{{.}}</li>
{{end}}</ul>{{end}}{{if not .Single}}<p class="notes rule">The rule behind every winner, mark and percentage is stated once, in clyde's {{ruleRef}} ({{ruleURL}}; the page links to nothing, so that it loads nothing).</p>
{{end}}
</body></html>
{{define "figures"}}{{if .Single}}
<h2>Figures</h2>
<div class="pair">
{{range .Tables}}<div><h3>{{.Title}}</h3>
<table class="single" id="single-{{.ID}}"><tr><th>test</th><th class="col">figure</th><th>unit</th>{{if .Rates}}<th class="col">ran for</th>{{end}}</tr>
{{range .Columns}}{{$c := index .Cells 0}}<tr data-key="{{.Key}}"><td>{{.Key}}</td><td class="num{{if eq $c.State "short"}} short{{end}}" data-run="A" data-state="{{$c.State}}" data-value="{{$c.Value}}">{{$c.Text}}</td><td>{{.Unit}}</td>{{if $.Single}}{{if .HigherIsBetter}}<td class="num">{{if $c.ElapsedNs}}{{printf "%.2f s" (secs $c.ElapsedNs)}}{{else}}-{{end}}</td>{{end}}{{end}}</tr>
{{end}}</table></div>
{{end}}</div>
{{else}}
{{with .Summary}}{{if .Columns}}<h2>Overall</h2>
<figure class="summary"><figcaption>Geometric mean of {{len .Columns}} rate column(s), relative to run A <span class="sub">more is better</span></figcaption>
{{$.SummarySVG}}</figure>
<p class="notes">Over the rate columns every run measured for 0.5 s or more: {{join .Columns}}.{{if .Left}} Left out (a run had no figure, or one under 0.5 s): {{join .Left}}.{{end}} "won" counts the columns the rule crowned a run in; the mean itself is a summary the rule does not test, so it has no winner.</p>
{{end}}{{end}}
<h2>Results per test</h2>
<div class="grid bars">
{{range .Bars}}{{template "barchart" .}}{{end}}</div>
<h2>Figures</h2>
{{range .Tables}}{{$t := .}}<h3>{{.Title}}</h3>
<div class="scroll"><table class="figures"><tr><th>run</th>{{range .Columns}}<th class="col" data-key="{{.Key}}">{{.Key}}<span class="vs">{{.Unit}}</span></th>{{end}}</tr>
{{range $i, $row := .Rows}}<tr class="figures" data-run="{{(index $.Runs $row.Run).Letter}}"><td class="nowrap"><span class="swatch" style="background: {{(index $.Runs $row.Run).Color}}"></span>{{(index $.Runs $row.Run).Letter}} {{(index $.Runs $row.Run).Short}}</td>{{range $row.Cells}}<td class="num{{if .Best}} best{{end}}{{if eq .State "short"}} short{{end}}{{if or (eq .State "not_run") (eq .State "too_fast") (eq .State "unknown")}} missing{{end}}" data-state="{{.State}}" data-value="{{.Value}}">{{.Text}}{{with .CIText}} <span class="ci">{{.}}</span>{{end}}{{if .VsFirst}}<span class="vs">{{.VsFirst}} vs A</span>{{with .VsTest}}<span class="vs test">{{.}}</span>{{end}}{{end}}</td>{{end}}</tr>
{{end}}<tr class="winner"><td>winner</td>{{range $k, $w := .Winners}}<td class="num"{{with index $t.NoWinners $k}} title="{{.}}"{{end}}>{{$w}}</td>{{end}}</tr>
</table></div>
{{end}}
{{end}}
{{end}}{{define "barchart"}}<figure class="barchart" data-key="{{.Key}}" data-unit="{{.Unit}}"><figcaption>{{.Title}} <span class="sub">{{.Unit}}, {{.Better}}</span>{{with .NoWinner}}<span class="nowinner">no winner: {{.}}</span>{{end}}</figcaption>
{{barSVG .}}</figure>
{{end}}{{define "chart"}}<figure class="chart" data-title="{{.Title}}"><figcaption>{{.Title}}</figcaption>{{with .Scale}}<div class="scale" data-unit="{{.Unit}}" data-min="{{.Min}}" data-max="{{.Max}}"><span class="lo">{{.MinText}}</span><span class="ramp">{{range .Steps}}<span style="background: {{.Color}}" title="{{printf "%.0f" .Value}}"></span>{{end}}</span><span class="hi">{{.MaxText}} {{.Unit}}</span><span class="sub">(red lowest, white highest)</span></div>{{end}}{{.SVG}}
<ul class="legend">{{range .Legend}}<li><span class="sample" style="border-top-style: {{.Dash}}; border-top-color: {{.Color}}"></span>{{.Name}}</li>{{end}}</ul></figure>
{{end}}`))
