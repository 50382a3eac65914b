package htmlreport

import (
	"fmt"
	"html/template"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/clydebench/clyde/internal/blockreport"
	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/internal/copyreport"
	"github.com/clydebench/clyde/result"
)

// Each block tool gets the page its users know, chosen from what the
// result says ran: CrystalDiskMark's window (cdm.go's rows, MB/s of 10^6
// bytes and IOPS, random and 0Fill side by side), ORION's summary then its
// matrices (orion.go), Iometer's results display, CopySpdBench's table.
// The figures every run has in common (compare's keys: fio's job names for
// ORION and Iometer) go to a table at the end of such a page.

// The tools a page can be the page of.
const (
	toolCDM     = "cdm"
	toolOrion   = "orion"
	toolIometer = "iometer"
	toolCopy    = "copy"
)

// toolRunName names a tool's run in the Runs table: ORION's test name,
// the .icf file, CrystalDiskMark's profile; "" to keep compare's name.
func toolRunName(r *compare.Run) string {
	switch toolOf(r) {
	case toolOrion:
		return "orion " + r.Block.Orion.TestName
	case toolIometer:
		return r.Block.Iometer.Source
	case toolCDM:
		return "cdm " + r.Block.CDM.Preset
	}
	return ""
}

// toolTitles name the tools as their users do.
var toolTitles = map[string]string{toolCDM: "CrystalDiskMark", toolOrion: "ORION", toolIometer: "Iometer", toolCopy: "CopySpdBench"}

// toolOf is the tool whose page run r gets, from what its result says ran;
// "" for fs runs and fio-style jobs.
func toolOf(r *compare.Run) string {
	switch {
	case r.Copy != nil:
		return toolCopy
	case r.Block == nil:
		return ""
	case r.Block.CDM != nil:
		return toolCDM
	case r.Block.Orion != nil:
		return toolOrion
	case r.Block.Iometer != nil:
		return toolIometer
	}
	return ""
}

// pageTool is the tool of every run, "" when they differ or none has one.
func pageTool(runs []*compare.Run) string {
	t := toolOf(runs[0])
	for _, r := range runs[1:] {
		if toolOf(r) != t {
			return ""
		}
	}
	return t
}

// toolTitle is a tool page's title: the tool and what it ran on.
func toolTitle(tool string, runs []*compare.Run) string {
	name := toolTitles[tool] + " (clyde)"
	if len(runs) > 1 {
		return fmt.Sprintf("%s: %d runs compared", name, len(runs))
	}
	r := runs[0]
	switch tool {
	case toolOrion:
		o := r.Block.Orion
		return fmt.Sprintf("%s: %s, -run %s", name, o.TestName, o.Run)
	case toolIometer:
		return fmt.Sprintf("%s: %s on %s", name, r.Block.Iometer.Source, r.Target())
	case toolCDM:
		return fmt.Sprintf("%s: %s on %s", name, r.Block.CDM.Profile, r.Target())
	}
	return fmt.Sprintf("%s: %s", name, r.Target())
}

// buildTools fills the page's tool views, one per run that has one.
func buildTools(p *pageData, runs []*compare.Run) error {
	for i, r := range runs {
		letter := compare.RunLetter(i)
		switch toolOf(r) {
		case toolCDM:
			p.CDM = append(p.CDM, cdmWindowOf(letter, r.Block))
		case toolOrion:
			v, err := orionViewOf(letter, r.Block)
			if err != nil {
				return err
			}
			p.Orion = append(p.Orion, v)
		case toolIometer:
			v, err := iometerViewOf(letter, r.Block)
			if err != nil {
				return err
			}
			p.Iometer = append(p.Iometer, v)
		case toolCopy:
			p.Copy = append(p.Copy, copyViewOf(letter, r.Target(), r.Copy))
		}
	}
	return nil
}

// cdmWindow is one run as CrystalDiskMark's window shows it: a row per
// test, a column per mode (Read, Write, Mix), each cell MB/s with IOPS and
// latency under it; with --test-data both, random and 0Fill side by side
// with 0Fill's MB/s over random's.
type cdmWindow struct {
	Run     string `json:"run"`
	Profile string `json:"profile"`
	// Passes and Size head the window as CrystalDiskMark's selectors do
	// ("5", "1 GiB"); Drive is the filesystem and its fill level.
	Passes int    `json:"passes"`
	Size   string `json:"size"`
	Drive  string `json:"drive,omitempty"`
	// Data are the test data columns of every mode: "random", "zero" or
	// both, in that order.
	Data     []string              `json:"data"`
	Both     bool                  `json:"both"`
	Modes    []cdmMode             `json:"modes"`
	Rows     []cdmTestRow          `json:"rows"`
	Kept     string                `json:"kept"`
	Settings []blockreport.Setting `json:"settings"`
	// Stopped says why the run ended early ("Interrupted"), "" when it
	// did not.
	Stopped string `json:"stopped,omitempty"`
}

type cdmMode struct {
	Mode  string `json:"mode"` // read, write, mix
	Title string `json:"title"`
}

// cdmTestRow is one test ("SEQ1M Q8T1") in every mode.
type cdmTestRow struct {
	Test  string    `json:"test"`
	Cells []cdmCell `json:"cells"`
}

// cdmCell is one test in one mode: a figure per test data, and with both
// the ratio of 0Fill's MB/s to random's.
type cdmCell struct {
	Mode    string      `json:"mode"`
	Figures []cdmFigure `json:"figures"`
	Ratio   float64     `json:"ratio,omitempty"`
	// RatioText is "x1.339" as the text export prints it; "" without both.
	RatioText string `json:"ratio_text,omitempty"`
}

// cdmFigure is a row of result.BlockCDM: the kept MB/s (10^6 B/s), IOPS
// and mean latency, and their texts; Ran false where the row did not run
// (an interrupted run).
type cdmFigure struct {
	Data      string  `json:"data"`
	Ran       bool    `json:"ran"`
	MBps      float64 `json:"mb_s,omitempty"`
	IOPS      float64 `json:"iops,omitempty"`
	LatencyUs float64 `json:"latency_us,omitempty"`
	MBpsText  string  `json:"mb_s_text"`
	IOPSText  string  `json:"iops_text,omitempty"`
	LatText   string  `json:"latency_text,omitempty"`
}

// cdmModes are CrystalDiskMark's columns in its order.
var cdmModes = []cdmMode{{"read", "Read"}, {"write", "Write"}, {"mix", "Mix"}}

func cdmWindowOf(letter string, b *result.Block) cdmWindow {
	c := b.CDM
	w := cdmWindow{Run: letter, Profile: c.Profile, Passes: c.Passes, Size: blockreport.CDMTestSize(c.TestSizeBytes),
		Drive: blockreport.CDMDrive(b.Space), Both: c.TestData == "both", Settings: blockreport.CDMSettings(b),
		Stopped: blockreport.CDMStopped(b)}
	switch c.TestData {
	case "both":
		w.Data = []string{"random", "zero"}
	case "zero":
		w.Data = []string{"zero"}
	default:
		w.Data = []string{"random"}
	}
	passes := fmt.Sprintf("%d passes", c.Passes)
	if c.Passes == 1 {
		passes = "1 pass"
	}
	w.Kept = "each figure the best of " + passes + " (highest MB/s, lowest latency), as CrystalDiskMark keeps it"
	if c.Aggregate == "average" {
		w.Kept = "each figure the average of " + passes + " (KDiskMark's Default profile; CrystalDiskMark keeps the best)"
	}
	type key struct{ test, mode, data string }
	rows := map[key]result.BlockCDMRow{}
	var tests []string
	seen := map[string]bool{}
	modes := map[string]bool{}
	for _, r := range c.Rows {
		rows[key{r.Test, r.Mode, r.Data}] = r
		if !seen[r.Test] {
			seen[r.Test] = true
			tests = append(tests, r.Test)
		}
		modes[r.Mode] = true
	}
	for _, m := range cdmModes {
		if modes[m.Mode] {
			if m.Mode == "mix" && c.MixReadPct > 0 {
				m.Title = fmt.Sprintf("Mix R%d%%/W%d%%", c.MixReadPct, 100-c.MixReadPct)
			}
			w.Modes = append(w.Modes, m)
		}
	}
	for _, t := range tests {
		tr := cdmTestRow{Test: t}
		for _, m := range w.Modes {
			cell := cdmCell{Mode: m.Mode}
			for _, d := range w.Data {
				f := cdmFigure{Data: d, MBpsText: "-"}
				if r, ok := rows[key{t, m.Mode, d}]; ok && len(r.Jobs) > 0 && r.BWBytes > 0 {
					f = cdmFigure{Data: d, Ran: true, MBps: r.BWBytes / 1e6, IOPS: r.IOPS, LatencyUs: r.LatencyUs,
						MBpsText: strconv.FormatFloat(r.BWBytes/1e6, 'f', 2, 64),
						IOPSText: strconv.FormatFloat(r.IOPS, 'f', 1, 64), LatText: strconv.FormatFloat(r.LatencyUs, 'f', 2, 64)}
				}
				cell.Figures = append(cell.Figures, f)
			}
			if w.Both && cell.Figures[0].Ran && cell.Figures[1].Ran {
				cell.Ratio = cell.Figures[1].MBps / cell.Figures[0].MBps
				cell.RatioText = "x" + strconv.FormatFloat(cell.Ratio, 'f', 3, 64)
			}
			tr.Cells = append(tr.Cells, cell)
		}
		w.Rows = append(w.Rows, tr)
	}
	return w
}

// DataTitle is a test data column's heading, as CrystalDiskMark names it.
func (cdmWindow) DataTitle(d string) string {
	if d == "zero" {
		return "0Fill"
	}
	return "Random"
}

// iometerView is one run as Iometer's results display shows it: the .icf
// named, then per test (an access specification at one step of the
// cycling) Total I/Os per Second first, MBps, average and maximum response
// time, CPU and errors.
type iometerView struct {
	Run         string `json:"run"`
	Source      string `json:"source"`
	Description string `json:"description,omitempty"`
	RunTime     string `json:"run_time"`
	RampTime    string `json:"ramp_up_time"`
	Cycling     string `json:"cycling,omitempty"`
	CPUScope    string `json:"cpu_scope"`
	// Best is the test with the most Total I/Os per Second.
	Best    *iometerRow   `json:"best,omitempty"`
	Specs   []iometerSpec `json:"specs"`
	Ignored []string      `json:"ignored,omitempty"`
	Charts  []chart       `json:"charts,omitempty"`
}

// iometerSpec is an access specification's tests, in the order they ran.
type iometerSpec struct {
	Name  string       `json:"name"`
	Tests []iometerRow `json:"tests"`
}

// iometerRow is one test's figures as Iometer prints them (%.2f, response
// times in ms to four places), the raw numbers beside the texts.
type iometerRow struct {
	Spec           string  `json:"spec"`
	Workers        int     `json:"workers"`
	OutstandingIOs int     `json:"outstanding_ios"`
	IOPS           float64 `json:"iops"`
	ReadIOPS       float64 `json:"read_iops"`
	WriteIOPS      float64 `json:"write_iops"`
	MBps           float64 `json:"mbps_decimal"`
	MBpsBinary     float64 `json:"mbps_binary"`
	AvgMs          float64 `json:"avg_response_ms"`
	MaxMs          float64 `json:"max_response_ms"`
	CPUPct         float64 `json:"cpu_pct"`
	CPUKnown       bool    `json:"cpu_known"`
	Errors         int64   `json:"errors"`
}

func iometerViewOf(letter string, b *result.Block) (iometerView, error) {
	io := b.Iometer
	v := iometerView{Run: letter, Source: io.Source, Description: io.Description, RunTime: seconds(io.RunTimeNs),
		RampTime: seconds(io.RampTimeNs), Cycling: io.Cycling, CPUScope: io.CPUScope, Ignored: io.Ignored}
	index := map[string]int{}
	for _, t := range io.Tests {
		row := iometerRow{Spec: t.AccessSpec, Workers: t.Workers, OutstandingIOs: t.OutstandingIOs, IOPS: t.IOPS,
			ReadIOPS: t.ReadIOPS, WriteIOPS: t.WriteIOPS, MBps: t.MBpsDecimal, MBpsBinary: t.MBpsBinary,
			AvgMs: t.AvgResponseMs, MaxMs: t.MaxResponseMs, CPUPct: t.CPUPct, CPUKnown: t.CPUKnown, Errors: t.Errors}
		i, ok := index[t.AccessSpec]
		if !ok {
			i = len(v.Specs)
			index[t.AccessSpec] = i
			v.Specs = append(v.Specs, iometerSpec{Name: t.AccessSpec})
		}
		v.Specs[i].Tests = append(v.Specs[i].Tests, row)
		if v.Best == nil || row.IOPS > v.Best.IOPS {
			r := row
			v.Best = &r
		}
	}
	charts, err := iometerCharts(v)
	v.Charts = charts
	return v, err
}

// seconds is a duration as Iometer's setup gives it: whole seconds, or
// to the millisecond.
func seconds(ns int64) string {
	return strconv.FormatFloat(float64(ns)/1e9, 'f', -1, 64) + " s"
}

// iometerCharts are the cycling's curves: Total I/Os per Second and the
// average response time against the outstanding I/Os, a line per access
// specification; none when nothing was cycled.
func iometerCharts(v iometerView) ([]chart, error) {
	cycled := false
	for _, s := range v.Specs {
		cycled = cycled || len(s.Tests) > 1
	}
	if !cycled {
		return nil, nil
	}
	var out []chart
	for _, m := range []struct {
		title, y string
		value    func(iometerRow) float64
	}{
		{"Total I/Os per Second", "I/Os per second", func(r iometerRow) float64 { return r.IOPS }},
		{"Average I/O Response Time", "ms", func(r iometerRow) float64 { return r.AvgMs }},
	} {
		var lines []line
		for _, s := range v.Specs {
			l := line{Name: s.Name, Color: len(lines)}
			for _, t := range s.Tests {
				l.XY = append(l.XY, plotter.XY{X: float64(t.OutstandingIOs), Y: m.value(t)})
			}
			lines = append(lines, l)
		}
		c, err := drawLines(chart{Section: sectionIometer, Title: m.title, XLabel: "outstanding I/Os per worker", YLabel: m.y, Lines: lines}, true)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// drawLines draws c's lines on linear axes from 0 (a log2 x axis when the
// x values double, as Iometer's and ORION's loads often do) and fills in
// its SVG and legend.
func drawLines(c chart, points bool) (chart, error) {
	p, err := lineChart(c.XLabel, c.YLabel, c.Lines, points)
	if err != nil || p == nil {
		return c, err
	}
	p.X.Tick.Marker = loadTicks(c.Lines)
	svg, err := renderSVG(p, wideW, wideH)
	if err != nil {
		return c, fmt.Errorf("chart %q: %w", c.Title, err)
	}
	c.SVG = template.HTML(svg)
	for _, l := range c.Lines {
		c.Legend = append(c.Legend, legendItem{Name: l.Name, Color: runHex(l.Color), Dash: dashCSS(l.Color)})
	}
	return c, nil
}

// copyView is one clyde copy run as CopySpdBench's table: a row per set
// and method with its time and MB/s, and whether every copy was verified.
type copyView struct {
	Run    string    `json:"run"`
	Target string    `json:"target"`
	Sync   string    `json:"sync"`
	Buffer string    `json:"buffer"`
	Rows   []copyRow `json:"rows"`
	// Unavailable are the methods that could not run here, with why.
	Unavailable []string `json:"unavailable,omitempty"`
}

// copySyncText says how the copies reached the disk inside the timed part.
var copySyncText = map[string]string{"file": "each copy fsynced before it counts", "fs": "one syncfs of the destination per set",
	"none": "no fsync (--no-fsync: copies counted in the page cache)"}

type copyRow struct {
	Set    string `json:"set"` // "Copy 100Mx1", CopySpdBench's name
	Method string `json:"method"`
	Files  int64  `json:"files"`
	Bytes  int64  `json:"bytes"`
	Time   string `json:"time"`
	// MBps is MB/s of 10^6 bytes; Clone marks a copy that moved no data
	// (shared extents), whose time is not a copy rate and whose MBpsText
	// says so.
	MBps        float64 `json:"mb_s"`
	MBpsText    string  `json:"mb_s_text"`
	FilesPerSec float64 `json:"files_per_sec"`
	P99         string  `json:"p99_per_file"`
	Clone       bool    `json:"clone,omitempty"`
	Verified    bool    `json:"verified"`
	Cold        bool    `json:"sources_cold"`
	Interrupted bool    `json:"interrupted,omitempty"`
}

func copyViewOf(letter, target string, c *result.Copy) copyView {
	v := copyView{Run: letter, Target: target, Sync: copySyncText[c.Config.Sync], Buffer: c.Config.Buffer}
	if v.Sync == "" {
		v.Sync = "sync " + c.Config.Sync
	}
	for _, m := range c.Methods {
		if !m.Available {
			v.Unavailable = append(v.Unavailable, m.Method+": "+m.Reason)
		}
	}
	for _, f := range c.Results {
		if !f.Ran {
			continue
		}
		row := copyRow{Set: copyreport.SetColumn(f.Set), Method: f.Method, Files: f.Files, Bytes: f.Bytes,
			Time: copyreport.FormatDuration(f.ElapsedNs), FilesPerSec: f.FilesPerSec, P99: copyreport.FormatDuration(f.Latency.P99Ns),
			Clone: f.NotDataCopy, Verified: f.Verified, Cold: f.SourcesCold(), Interrupted: f.Interrupted, MBpsText: "-"}
		switch {
		case !f.NotDataCopy:
			row.MBps = f.MBPerSec
			row.MBpsText = strconv.FormatFloat(f.MBPerSec, 'f', 3, 64)
		case f.Method == "clone":
			row.MBpsText = "no data copied (clone)"
		default:
			row.MBpsText = "no data copied (extents shared)"
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// loadTicks label the x axis at every load the lines have, so that the
// ticks are the loads that ran (1, 2, 4, 8), not round numbers between.
func loadTicks(lines []line) plot.ConstantTicks {
	seen := map[float64]bool{}
	var xs []float64
	for _, l := range lines {
		for _, p := range l.XY {
			if !seen[p.X] {
				seen[p.X] = true
				xs = append(xs, p.X)
			}
		}
	}
	sort.Float64s(xs)
	var ticks plot.ConstantTicks
	for _, x := range xs {
		ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'f', -1, 64)})
	}
	return ticks
}
