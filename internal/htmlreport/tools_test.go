package htmlreport

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/blockreport"
	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/result"
)

// TestToolPageChosen: the page is chosen from what the result says ran,
// and titled after the tool; fio-style jobs keep the generic page.
func TestToolPageChosen(t *testing.T) {
	for _, tc := range []struct {
		inputs      []string
		tool, title string
	}{
		{[]string{"html/cdm-both.json"}, toolCDM, "CrystalDiskMark (clyde): Default on /work/scratch/pages/mnt"},
		{[]string{"block/profile-cdm.json"}, toolCDM, "CrystalDiskMark (clyde): Default on "},
		{[]string{"html/orion-normal.json"}, toolOrion, "ORION (clyde): ssd, -run normal"},
		{[]string{"block/profile-orion.json"}, toolOrion, "ORION (clyde): block, -run simple"},
		{[]string{"html/iometer-cycled.json"}, toolIometer, "Iometer (clyde): 4k-mixes-cycled.icf on /work/scratch/pages/mnt/iobw.tst"},
		{[]string{"block/profile-iometer-mix.json"}, toolIometer, "Iometer (clyde): iometer-mix on "},
		{[]string{"html/copy-all.json"}, toolCopy, "CopySpdBench (clyde): /work/scratch/pages/mnt"},
		{[]string{"html/cdm-both.json", "block/cdm-partial.json"}, toolCDM, "CrystalDiskMark (clyde): 2 runs compared"},
		{[]string{"block/result.json"}, "", "clyde block: one run"},
		{[]string{"block/profile-bs-sweep.json"}, "", "clyde block: one run"},
		// Different tools on one page: each its view, a generic title.
		{[]string{"html/cdm-both.json", "html/orion-normal.json"}, "", "clyde block: 2 runs compared"},
	} {
		t.Run(strings.Join(tc.inputs, "+"), func(t *testing.T) {
			p, err := buildPage(load(t, tc.inputs...))
			if err != nil {
				t.Fatal(err)
			}
			if p.Tool != tc.tool || !strings.HasPrefix(p.Title, tc.title) {
				t.Errorf("tool %q, title %q; want %q, %q", p.Tool, p.Title, tc.tool, tc.title)
			}
			views, want := len(p.CDM)+len(p.Orion)+len(p.Iometer)+len(p.Copy), len(tc.inputs)
			if tc.tool == "" && len(tc.inputs) == 1 {
				want = 0 // fio-style jobs
			}
			if views != want {
				t.Errorf("%d tool views, want %d", views, want)
			}
		})
	}
}

// TestCDMWindow: a row per test, a column per mode in CrystalDiskMark's
// order, random and 0Fill side by side with 0Fill's MB/s over random's;
// one test data column without both; tests that did not run left out and
// the stop said.
func TestCDMWindow(t *testing.T) {
	b := load(t, "block/cdm-both-mix.json")[0].Block
	w := cdmWindowOf("A", b)
	if !w.Both || len(w.Modes) != 3 || w.Modes[2].Title != "Mix R70%/W30%" || len(w.Rows) != 2 {
		t.Fatalf("window %+v", w)
	}
	for _, r := range w.Rows {
		for _, c := range r.Cells {
			if len(c.Figures) != 2 || c.Figures[0].Data != "random" || c.Figures[1].Data != "zero" {
				t.Fatalf("%s %s: figures %+v", r.Test, c.Mode, c.Figures)
			}
			var rnd, zero result.BlockCDMRow
			for _, row := range b.CDM.Rows {
				if row.Test == r.Test && row.Mode == c.Mode {
					if row.Data == "zero" {
						zero = row
					} else {
						rnd = row
					}
				}
			}
			if c.Figures[0].MBps != rnd.BWBytes/1e6 || c.Figures[1].IOPS != zero.IOPS || math.Abs(c.Ratio-zero.BWBytes/rnd.BWBytes) > 1e-12 ||
				c.RatioText != fmt.Sprintf("x%.3f", zero.BWBytes/rnd.BWBytes) {
				t.Errorf("%s %s: %+v, want %v and %v MB/s", r.Test, c.Mode, c, rnd.BWBytes/1e6, zero.BWBytes/1e6)
			}
		}
	}

	zero := &result.Block{CDM: &result.BlockCDM{Profile: "Default", Passes: 5, TestData: "zero", Rows: []result.BlockCDMRow{
		{Test: "SEQ1M Q8T1", Mode: "read", Data: "zero", Jobs: []int{1}, BWBytes: 2e9, IOPS: 1907.3, LatencyUs: 4100},
	}}}
	w = cdmWindowOf("A", zero)
	if w.Both || len(w.Data) != 1 || w.Data[0] != "zero" || w.Rows[0].Cells[0].RatioText != "" || w.Rows[0].Cells[0].Figures[0].MBpsText != "2000.00" {
		t.Errorf("0Fill only: %+v", w)
	}
	if !strings.Contains(w.Kept, "best of 5 passes") {
		t.Errorf("kept %q", w.Kept)
	}

	w = cdmWindowOf("A", load(t, "block/cdm-partial.json")[0].Block)
	if w.Stopped == "" || len(w.Modes) != 1 || len(w.Rows) != 2 {
		t.Errorf("a run stopped by an error: stopped %q, %d modes, %d rows", w.Stopped, len(w.Modes), len(w.Rows))
	}
}

// TestOrionSummaryAsText: the page's summary says what ORION's
// _summary.txt closes with, figure for figure and point for point.
func TestOrionSummaryAsText(t *testing.T) {
	for _, name := range []string{"html/orion-normal.json", "block/profile-orion.json"} {
		b := load(t, name)[0].Block
		for i := range b.Orion.Sets {
			s := &b.Orion.Sets[i]
			var text bytes.Buffer
			if err := blockreport.OrionPeaks(&text, s); err != nil {
				t.Fatal(err)
			}
			var page strings.Builder
			for _, pk := range orionPeaks(s) {
				unit := ""
				if pk.Unit == "usecs" {
					unit = " usecs"
				}
				fmt.Fprintf(&page, "%s=%s%s @ Small=%d and Large=%d\n", pk.Name, pk.Text, unit, pk.Small, pk.Large)
			}
			if page.String() != text.String() || page.Len() == 0 {
				t.Errorf("%s set %d: the page says\n%s\nthe summary\n%s", name, i, page.String(), text.String())
			}
		}
	}
}

// TestHeatmapTrimmed: a heat map leaves out the row and column with no
// figure (Small=0 has no IOPS, Large=0 no MBPS), and its scale spans the
// figures with the palette's colours, lowest first.
func TestHeatmapTrimmed(t *testing.T) {
	s := basicSet()
	for _, tc := range []struct {
		metric       orionMetric
		small, large []int
		lo, hi       float64
	}{
		{orionMetrics[0], []int{1, 2, 3}, []int{0, 1}, 100, 240},
		{orionMetrics[1], []int{0, 2}, []int{1, 2}, 40, 90},
	} {
		g, _ := gridOf(&s, tc.metric)
		tr := g.trimmed()
		if fmt.Sprint(tr.small) != fmt.Sprint(tc.small) || fmt.Sprint(tr.large) != fmt.Sprint(tc.large) {
			t.Errorf("%s: loads %v x %v, want %v x %v", tc.metric.title, tr.small, tr.large, tc.small, tc.large)
		}
		c, err := heatmapChart(g, tc.metric, "t")
		if err != nil {
			t.Fatal(err)
		}
		sc := c.Scale
		if sc == nil || sc.Min != tc.lo || sc.Max != tc.hi || len(sc.Steps) != 16 || sc.Steps[0].Value != tc.lo || sc.Steps[15].Value != tc.hi ||
			sc.Steps[0].Color != "#ff0000" {
			t.Errorf("%s: scale %+v", tc.metric.title, sc)
		}
	}
}

// TestIometerView: tests grouped by access specification in the order
// they ran, the headline the test with the most Total I/Os per Second, and
// the cycling drawn.
func TestIometerView(t *testing.T) {
	b := load(t, "html/iometer-cycled.json")[0].Block
	v, err := iometerViewOf("A", b)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Specs) != 4 || v.Source != "4k-mixes-cycled.icf" || len(v.Charts) != 2 {
		t.Fatalf("%d specifications, source %q, %d charts", len(v.Specs), v.Source, len(v.Charts))
	}
	n := 0
	best := b.Iometer.Tests[0]
	for _, s := range v.Specs {
		for _, r := range s.Tests {
			tt := b.Iometer.Tests[n]
			if r.Spec != s.Name || tt.AccessSpec != s.Name || r.IOPS != tt.IOPS || r.MaxMs != tt.MaxResponseMs || r.OutstandingIOs != tt.OutstandingIOs {
				t.Errorf("test %d: %+v, the JSON's %s at %d", n, r, tt.AccessSpec, tt.OutstandingIOs)
			}
			if tt.IOPS > best.IOPS {
				best = tt
			}
			n++
		}
	}
	if v.Best == nil || v.Best.IOPS != best.IOPS || v.Best.Spec != best.AccessSpec {
		t.Errorf("headline %+v, want %s at %v", v.Best, best.AccessSpec, best.IOPS)
	}
	if v.Charts[0].Lines[0].XY[3].X != 8 {
		t.Errorf("cycling's x values %v, want the outstanding I/Os", v.Charts[0].Lines[0].XY)
	}
}

// TestCopyView: CopySpdBench's rows, a clone and a copy_file_range that
// shared extents saying no data was copied rather than giving a rate.
func TestCopyView(t *testing.T) {
	r := load(t, "copy/btrfs-all.json")[0]
	v := copyViewOf("A", r.Target(), r.Copy)
	if len(v.Rows) != 6 {
		t.Fatalf("%d rows", len(v.Rows))
	}
	for _, row := range v.Rows {
		f := r.Copy.Figure(strings.TrimPrefix(row.Set, "Copy "), row.Method)
		switch {
		case f == nil:
			t.Fatalf("row %s %s not in the result", row.Set, row.Method)
		case f.NotDataCopy != row.Clone, !row.Clone && row.MBpsText != fmt.Sprintf("%.3f", f.MBPerSec),
			row.Clone && !strings.HasPrefix(row.MBpsText, "no data copied"), row.Verified != f.Verified:
			t.Errorf("%s %s: %+v", row.Set, row.Method, row)
		}
	}
	if v.Sync != "each copy fsynced before it counts" {
		t.Errorf("sync %q", v.Sync)
	}
}

// TestToolPageLayout: a tool's page opens with the tool's view, has no
// chart per job (an ORION run's hundred curves buried its matrix), and
// ends with every figure in one collapsed table.
func TestToolPageLayout(t *testing.T) {
	for _, name := range []string{"html/cdm-both.json", "html/orion-normal.json", "html/iometer-cycled.json", "html/copy-all.json"} {
		t.Run(name, func(t *testing.T) {
			runs := load(t, name)
			var b bytes.Buffer
			if err := Write(&b, runs); err != nil {
				t.Fatal(err)
			}
			page := b.String()
			tool, runsTable, all := strings.Index(page, `<section class="tool`), strings.Index(page, "<h2>Runs</h2>"), strings.Index(page, `<details class="all-figures"`)
			if tool < 0 || runsTable < tool || all < runsTable {
				t.Errorf("tool view at %d, Runs at %d, every figure at %d", tool, runsTable, all)
			}
			for _, bad := range []string{"<h2>" + sectionLatency, "<h2>" + sectionSeries} {
				if strings.Contains(page, bad) {
					t.Errorf("the page has the per-job section %q", bad)
				}
			}
			if n, want := strings.Count(page[all:], `<tr data-key=`), len(runs[0].Figures()); n != want {
				t.Errorf("%d rows in the closing table, the run has %d figures", n, want)
			}
		})
	}
	// A page of several tools' runs keeps each run's view.
	p, err := buildPage([]*compare.Run{load(t, "html/cdm-both.json")[0], load(t, "html/orion-normal.json")[0]})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.CDM) != 1 || len(p.Orion) != 1 || p.CDM[0].Run != "A" || p.Orion[0].Run != "B" {
		t.Errorf("mixed page: %d CDM and %d ORION views", len(p.CDM), len(p.Orion))
	}
}

// TestComparedFiguresOpen: a page comparing CrystalDiskMark runs shows
// its bars at the end, open; a page comparing ORION runs keeps its
// hundreds of fio-named figures closed, and a single run's page too.
func TestComparedFiguresOpen(t *testing.T) {
	for _, tc := range []struct {
		inputs []string
		open   bool
	}{
		{[]string{"html/cdm-both.json", "block/cdm-partial.json"}, true},
		{[]string{"html/copy-all.json", "copy/btrfs-all.json"}, true},
		{[]string{"html/orion-normal.json", "block/profile-orion.json"}, false},
		{[]string{"html/cdm-both.json"}, false},
	} {
		var b bytes.Buffer
		if err := Write(&b, load(t, tc.inputs...)); err != nil {
			t.Fatal(err)
		}
		if open := strings.Contains(b.String(), `<details class="all-figures" open>`); open != tc.open {
			t.Errorf("%v: figures open %v, want %v", tc.inputs, open, tc.open)
		}
	}
}
