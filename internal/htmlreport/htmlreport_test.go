package htmlreport

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/result"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/html")

const testdata = "../../testdata/"

func load(t *testing.T, files ...string) []*compare.Run {
	t.Helper()
	var runs []*compare.Run
	for _, f := range files {
		rs, err := compare.Load(testdata+f, nil)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, rs...)
	}
	return runs
}

// pages are the test pages: bonnie++ imports (twelve runs, some +++++ and
// unknown), clyde block results (a per-second series, a bs-sweep), two
// clyde fs runs on two loop filesystems (ext4 and xfs images, the
// two-SSD comparison), one of them alone, and a page per block tool.
var pages = []struct {
	name   string
	inputs []string
	html   bool // a golden of the whole page too
}{
	{"fs", []string{"compare/bonnie-2.00a-lines.csv", "compare/bonnie-1.96-ssd-840pro-vs-m4.txt"}, true},
	{"block", []string{"block/result.json", "block/profile-bs-sweep.json"}, true},
	{"two-ssd", []string{"html/ssd-ext4.json", "html/ssd-xfs.json"}, false},
	{"single", []string{"html/ssd-ext4.json"}, false},
	// The block tools' pages, from real runs on a loop-mounted ext4 image
	// (testdata/html/README.md): CrystalDiskMark with --test-data both and
	// --fill 40%, ORION -run normal, Iometer cycling outstanding I/Os,
	// clyde copy --method all.
	{"cdm", []string{"html/cdm-both.json"}, true},
	{"orion", []string{"html/orion-normal.json"}, true},
	{"iometer", []string{"html/iometer-cycled.json"}, true},
	{"copy", []string{"html/copy-all.json"}, true},
	// mpiexec -n 4 over two hosts (h1, h2: UTS namespaces, as in
	// integration's TestMpiexecHosts), clyde fs -s 0 -n 4:0:0:4
	{"ranks", []string{"html/job-2hosts.json"}, true},
	// Two runs of clyde fs -s 64 -r 32 -n 4 -x 3 on one tmpfs on a busy
	// machine: the rule's winners, "none" and error bars.
	{"repeats", []string{"html/tmpfs-x3-a.json", "html/tmpfs-x3-b.json"}, true},
}

// golden compares got with testdata/html/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := testdata + "html/" + name
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/htmlreport -update)", err)
	}
	if !bytes.Equal(got, want) {
		out := filepath.Join(t.TempDir(), name)
		os.WriteFile(out, got, 0o644)
		t.Errorf("%s differs from %s (written to %s); rerun with -update if the change is intended", name, path, out)
	}
}

// TestGolden renders each test page and compares the data behind every
// chart and table (name.json) and, for some, the whole page (name.html)
// with golden files; the page is deterministic.
func TestGolden(t *testing.T) {
	for _, tc := range pages {
		t.Run(tc.name, func(t *testing.T) {
			runs := load(t, tc.inputs...)
			p, err := buildPage(runs)
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.MarshalIndent(p, "", " ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name+".json", append(data, '\n'))
			var b bytes.Buffer
			if err := Write(&b, runs); err != nil {
				t.Fatal(err)
			}
			for _, bad := range []string{"<script", "<link", "src=", "href=", "url(", "@import"} {
				if strings.Contains(b.String(), bad) {
					t.Fatalf("the page holds %q: it must load nothing", bad)
				}
			}
			if tc.html {
				golden(t, tc.name+".html", b.Bytes())
			}
		})
	}
}

// TestBarValues checks the bars against the figures the two bonnie++ 1.96
// reports print for the two SSDs, that a +++++ has a bar that says so
// rather than none, and that one report a side crowns nobody.
func TestBarValues(t *testing.T) {
	runs := load(t, "compare/bonnie-1.96-ssd-840pro-vs-m4.txt")
	p, err := buildPage(runs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]float64{
		// Block output in MiB/s (K/sec as printed / 1024), sequential create in files/s.
		"put_block":  {417854.0 / 1024, 233683.0 / 1024},
		"seq_create": {25559, 14095},
	}
	found := 0
	for _, b := range p.Bars {
		switch b.Key {
		case "put_block", "seq_create":
			found++
			w := want[b.Key]
			if len(b.Bars) != 2 || b.Bars[0].Label[:1] != "A" || b.Bars[1].Label[:1] != "B" {
				t.Fatalf("%s: bars %+v, want A and B", b.Key, b.Bars)
			}
			for i := range 2 {
				if math.Abs(b.Bars[i].Value-w[i]) > 1e-9 {
					t.Errorf("%s: bar %d is %v %s, the report says %v", b.Key, i, b.Bars[i].Value, b.Unit, w[i])
				}
			}
			// One figure a side: the rule cannot tell, so no star, no
			// percentage of a best, and the caption says why.
			if b.Bars[0].Best || b.Bars[1].Best || b.Bars[1].PctOfBest != 0 || !strings.Contains(b.NoWinner, "cannot tell") {
				t.Errorf("%s: best/percentages %+v (%q), want none", b.Key, b.Bars, b.NoWinner)
			}
		case "getc", "get_block", "seeks":
			for _, br := range b.Bars {
				if br.State != stateTooFast || br.Length != 0 {
					t.Errorf("%s: %+v, want a +++++ bar of no length", b.Key, br)
				}
			}
		}
	}
	if found != len(want) {
		t.Fatalf("found %d of the columns %v", found, want)
	}
}

// TestSummaryGeoMean: the overall figure is the geometric mean of B/A over
// the rate columns both runs measured for 0.5 s or more.
func TestSummaryGeoMean(t *testing.T) {
	runs := load(t, "html/ssd-ext4.json", "html/ssd-xfs.json")
	p, err := buildPage(runs)
	if err != nil {
		t.Fatal(err)
	}
	var logs float64
	n := 0
	for tst := range runs[0].FS.Runs[0].Tests {
		a, b := runs[0].FS.Runs[0].Tests[tst], runs[1].FS.Runs[0].Tests[tst]
		if a.TooShort || b.TooShort {
			continue
		}
		logs += math.Log(b.RatePerSec / a.RatePerSec)
		n++
	}
	want := math.Exp(logs/float64(n)) * 100
	s := p.Summary
	if len(s.Columns) != n || math.Abs(s.Runs[1].GeoMeanPct-want) > 1e-9 || s.Runs[0].GeoMeanPct != 100 {
		t.Fatalf("summary %+v over %v, want B at %.3f%% over %d columns", s.Runs, s.Columns, want, n)
	}
	if len(s.Left) != 1 || s.Left[0] != "seq_stat" {
		t.Fatalf("left out %v, want seq_stat (under 0.5 s in both runs)", s.Left)
	}
}

// TestSingleRunDoesNotCompare: one run's page has no bars, winners,
// percentages or summary.
func TestSingleRunDoesNotCompare(t *testing.T) {
	p, err := buildPage(load(t, "html/ssd-ext4.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Single || p.Summary != nil || len(p.Bars) != 0 {
		t.Fatalf("single-run page has summary %v, %d bar charts", p.Summary, len(p.Bars))
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, p); err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(b.String(), "</style>")
	for _, bad := range []string{"vs A", "winner", "best", "Overall", "% of"} {
		if strings.Contains(body, bad) {
			t.Errorf("the single-run page says %q", bad)
		}
	}
}

// TestLatencyLines checks the latency chart's points against the results'
// percentiles: for fs at p50, p90, p99, p99.9 and max; for block at every
// percentile fio reports; x on the nines axis, y in ns. A bonnie++ text
// report gives only the maximum, which makes no line.
func TestLatencyLines(t *testing.T) {
	if lines := latencyLines(load(t, "compare/bonnie-1.96-ssd-840pro-vs-m4.txt")[0]); len(lines) != 0 {
		t.Errorf("%d latency lines from a report that gives only maxima", len(lines))
	}
	fs := load(t, "result/fs.json")[0]
	lines := latencyLines(fs)
	if len(lines) != len(fs.FS.Runs[0].Tests) {
		t.Fatalf("%d lines for %d tests", len(lines), len(fs.FS.Runs[0].Tests))
	}
	xs := []float64{math.Log10(2), 1, 2, 3, 4}
	for i, l := range lines {
		tr := fs.FS.Runs[0].Tests[i]
		if l.Name != tr.Name {
			t.Fatalf("line %d is %q, test %q", i, l.Name, tr.Name)
		}
		want := []int64{tr.Latency.P50Ns, tr.Latency.P90Ns, tr.Latency.P99Ns, tr.Latency.P999Ns, tr.Latency.MaxNs}
		if len(l.XY) != len(want) {
			t.Fatalf("%s: %d points, want %d", l.Name, len(l.XY), len(want))
		}
		for k, p := range l.XY {
			if math.Abs(p.X-xs[k]) > 1e-9 || p.Y != float64(want[k]) {
				t.Errorf("%s point %d: (%v, %v), want (%v, %d ns)", l.Name, k, p.X, p.Y, xs[k], want[k])
			}
		}
	}

	block := load(t, "block/result.json")[0]
	blines := latencyLines(block)
	if len(blines) != 2 {
		t.Fatalf("%d block latency lines, want read and write of the one randrw job", len(blines))
	}
	for _, l := range blines {
		var dir = block.Block.Jobs[0].Read
		if strings.HasSuffix(l.Name, " write") {
			dir = block.Block.Jobs[0].Write
		}
		// Total latency (lat), from the histogram: fio's JSON keeps its
		// percentiles under clat_ns.
		ps := dir.LatPercentiles()
		if len(l.XY) != len(ps) || len(ps) == 0 {
			t.Fatalf("%s: %d points, %d percentiles", l.Name, len(l.XY), len(ps))
		}
		for i, pc := range ps {
			if math.Abs(l.XY[i].X-(-math.Log10(1-pc.P/100))) > 1e-9 || l.XY[i].Y != float64(pc.Value) {
				t.Errorf("%s point %d: (%v, %v), want p%v at %v ns", l.Name, i, l.XY[i].X, l.XY[i].Y, pc.P, pc.Value)
			}
		}
	}
	// Several runs: a chart per test, a line per run in the run's colour.
	groups := latencyGroups(load(t, "html/ssd-ext4.json", "html/ssd-xfs.json"))
	if len(groups) != 12 {
		t.Fatalf("%d latency charts for two fs runs, want one per test", len(groups))
	}
	for _, g := range groups {
		if len(g.lines) != 2 || g.lines[0].Color != 0 || g.lines[1].Color != 1 || !strings.HasPrefix(g.lines[1].Name, "B ") {
			t.Fatalf("chart %s: lines %+v", g.title, g.lines)
		}
	}
}

// TestSeriesLines checks the per-second chart: one point a second, at the
// second it started, with that second's IOPS.
func TestSeriesLines(t *testing.T) {
	b := load(t, "block/result.json")[0].Block
	lines := seriesLines(b)
	if len(lines) != 1 {
		t.Fatalf("%d lines, want one for the one job", len(lines))
	}
	series := b.Jobs[0].Series
	if len(lines[0].XY) != len(series) || len(series) < 2 {
		t.Fatalf("%d points for %d seconds", len(lines[0].XY), len(series))
	}
	for i, p := range lines[0].XY {
		if p.X != float64(i) || p.Y != series[i].IOPS {
			t.Errorf("point %d: (%v, %v), want (%d, %v)", i, p.X, p.Y, i, series[i].IOPS)
		}
	}
}

// TestSweepLines checks the bs-sweep curve: 1 KiB to 1 MiB is log2 10 to
// 20, and the y values are the rows' bandwidth in MiB/s.
func TestSweepLines(t *testing.T) {
	runs := load(t, "block/result.json", "block/profile-bs-sweep.json")
	lines := sweepLines(runs)
	if len(lines) != 1 || !strings.HasPrefix(lines[0].Name, "B ") {
		t.Fatalf("lines %v, want one, for run B (the sweep)", lines)
	}
	rows := runs[1].Block.Profile.Rows
	xy := lines[0].XY
	if len(xy) != 11 || len(rows) != 11 {
		t.Fatalf("%d points, %d rows, want 11 sizes", len(xy), len(rows))
	}
	for i, p := range xy {
		if p.X != float64(10+i) || math.Abs(p.Y-float64(rows[i].BWBytes)/(1<<20)) > 1e-9 {
			t.Errorf("point %d: (%v, %v), want (%d, %v)", i, p.X, p.Y, 10+i, float64(rows[i].BWBytes)/(1<<20))
		}
	}
}

// TestLogTicksNeverBare: a latency axis within one decade still has at
// least two labelled ticks, inside the range.
func TestLogTicksNeverBare(t *testing.T) {
	for _, r := range [][2]float64{{1, 1000}, {2.1, 6.4}, {1500, 4100}, {3.1, 3.4}, {0.9, 1.1}} {
		var labels []string
		for _, tk := range (logTicks{}).Ticks(r[0], r[1]) {
			if tk.Label == "" || tk.Value < r[0] || tk.Value > r[1] {
				continue // not drawn
			}
			labels = append(labels, tk.Label)
		}
		if len(labels) < 2 {
			t.Errorf("%v: labels %q, want two or more", r, labels)
		}
	}
}

// TestWinnerIsTheBestFigure: one rule for the star, the winner row and the
// percentages (internal/verdict): the best figure wins when the rule calls
// it better, measured under 0.5 s or not, and no bar is more than 100 % of
// the winner. On the btrfs vs NTFS page seq_stat's star went to NTFS's
// 7949 while btrfs's hollow 91818* bar said 1155.1 %. With one figure a
// side the rule cannot tell, and nobody is crowned.
func TestWinnerIsTheBestFigure(t *testing.T) {
	runs := []runInfo{{Letter: "A", Short: "btrfs"}, {Letter: "B", Short: "ntfs"}}
	col := column{Key: "seq_stat", Unit: "files/s", HigherIsBetter: true, Cells: []cell{
		{Run: 0, State: stateShort, Raw: 91818, Value: 91818, Text: "91818*", values: []float64{91818, 90500, 93100}},
		{Run: 1, State: stateKnown, Raw: 7949, Value: 7949, Text: "7949", values: []float64{7949, 7900, 8000}},
	}}
	markBest(&col, runs)
	if len(col.Best) != 1 || col.Best[0] != 0 || !col.BestShort || col.NoWinner != "" {
		t.Fatalf("best %v (short %v, %q), want run A, marked short", col.Best, col.BestShort, col.NoWinner)
	}
	if w := winnerText(col, runs); w != "A"+compare.ShortMark {
		t.Errorf("winner row %q, want A%s", w, compare.ShortMark)
	}
	for _, b := range bars([]column{col}, runs, func(k string) string { return k })[0].Bars {
		if b.PctOfBest > 100 || b.PctOfBest == 0 {
			t.Errorf("bar %s is %.1f%% of the best", b.Label, b.PctOfBest)
		}
		if b.Best != (b.Run == 0) {
			t.Errorf("bar %s: best %v", b.Label, b.Best)
		}
	}
	// Measured figures only: the usual winner.
	col.Cells[0].State = stateKnown
	col.BestShort, col.Best, col.Cells[0].Best = false, nil, false
	markBest(&col, runs)
	if col.BestShort || len(col.Best) != 1 || col.Best[0] != 0 {
		t.Errorf("measured: best %v short %v", col.Best, col.BestShort)
	}
	// One figure a side: nobody, no star, no percentages, and why.
	for i := range col.Cells {
		col.Cells[i].values = col.Cells[i].values[:1]
		col.Cells[i].Best = false
	}
	col.Best = nil
	markBest(&col, runs)
	if len(col.Best) != 0 || !strings.Contains(col.NoWinner, "the rule cannot tell A from B") || winnerText(col, runs) != "none" {
		t.Fatalf("one figure a side: best %v, %q, winner row %q", col.Best, col.NoWinner, winnerText(col, runs))
	}
	for _, b := range bars([]column{col}, runs, func(k string) string { return k })[0].Bars {
		if b.PctOfBest != 0 || b.Best {
			t.Errorf("bar %s: %.1f%% of a best, best %v; want neither", b.Label, b.PctOfBest, b.Best)
		}
	}
}

// TestHostBars: a many-client run's page has a bar per host for each phase,
// each the rate of the JSON's per-host row.
func TestHostBars(t *testing.T) {
	runs := load(t, "html/job-2hosts.json")
	p, err := buildPage(runs)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Hosts) != 1 || len(p.Hosts[0].Bars) != 6 {
		t.Fatalf("hosts views %+v", p.Hosts)
	}
	want := map[string]float64{}
	for _, h := range runs[0].FS.Job.PerHost {
		want[h.Test+"/"+h.Host] = h.RatePerSec
	}
	n := 0
	for _, b := range p.Hosts[0].Bars {
		test := strings.TrimSuffix(b.Title, " per host")
		for _, br := range b.Bars {
			host := strings.Fields(br.Label)[1]
			if w, ok := want[test+"/"+host]; !ok || br.Value != w {
				t.Errorf("%s %s: bar %v, JSON %v", test, host, br.Value, w)
			}
			n++
		}
	}
	if n != len(want) {
		t.Fatalf("%d bars for %d per-host rows", n, len(want))
	}
	var b bytes.Buffer
	if err := Write(&b, runs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `<section class="hosts"`) {
		t.Fatal("the page has no hosts section")
	}
}

// A block run across ranks gets a bar chart per group, every host in it;
// two groups running jobs of one name stay apart.
func TestHostBarsOfBlockSteps(t *testing.T) {
	rows := []result.JobHostRow{
		{Iteration: 0, Test: "randread", Host: "h1", Ranks: 2, RatePerSec: 1000},
		{Iteration: 0, Test: "randread", Host: "h2", Ranks: 2, RatePerSec: 800},
		{Iteration: 1, Test: "randread", Host: "h1", Ranks: 2, RatePerSec: 900},
		{Iteration: 1, Test: "randread", Host: "h2", Ranks: 2, RatePerSec: 950},
	}
	res := &result.Block{Kind: "block", Jobs: []result.BlockJob{{JobName: "randread"}, {JobName: "randread"}},
		Job: &result.RankJob{Launcher: "mpich-hydra-pmi1", Ranks: 4, Hosts: []string{"h1", "h2"}, Files: "rank",
			Phases:  []result.JobPhase{{Iteration: 0, Test: "randread", RateUnit: "IOPS"}, {Iteration: 1, Test: "randread", RateUnit: "IOPS"}},
			PerHost: rows}}
	p := &pageData{}
	buildHosts(p, []*compare.Run{{Label: "a.json", Block: res}})
	if len(p.Hosts) != 1 || len(p.Hosts[0].Bars) != 2 || p.Hosts[0].Ranks != 4 {
		t.Fatalf("hosts views %+v", p.Hosts)
	}
	for s, b := range p.Hosts[0].Bars {
		if b.Title != fmt.Sprintf("step %d: randread per host", s+1) || b.Unit != "IOPS" || len(b.Bars) != 2 {
			t.Fatalf("step %d: %q in %q, %d bars", s+1, b.Title, b.Unit, len(b.Bars))
		}
		for h, br := range b.Bars {
			if want := rows[2*s+h].RatePerSec; br.Value != want {
				t.Errorf("step %d host %d: %v, want %v", s+1, h, br.Value, want)
			}
		}
	}
}
