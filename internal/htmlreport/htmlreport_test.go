package htmlreport

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/compare"
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

// TestGolden renders a page of bonnie++ imports and one of clyde block
// results (a job with a per-second series, and a bs-sweep) and compares
// each with its golden file; the page is deterministic.
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		inputs []string
	}{
		{"fs.html", []string{"compare/bonnie-2.00a-lines.csv", "compare/bonnie-1.96-ssd-840pro-vs-m4.txt"}},
		{"block.html", []string{"block/result.json", "block/profile-bs-sweep.json"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, load(t, tc.inputs...)); err != nil {
				t.Fatal(err)
			}
			path := testdata + "html/" + tc.golden
			if *update {
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/htmlreport -update)", err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				got := filepath.Join(t.TempDir(), tc.golden)
				os.WriteFile(got, b.Bytes(), 0o644)
				t.Errorf("the page differs from %s (written to %s); rerun with -update if the change is intended", path, got)
			}
		})
	}
}

// TestBarValues checks a bar chart's heights against the figures the two
// bonnie++ 1.96 reports print for the two SSDs.
func TestBarValues(t *testing.T) {
	runs := load(t, "compare/bonnie-1.96-ssd-840pro-vs-m4.txt")
	keys, proto, grid := figureGrid(runs)
	want := map[string][2]float64{
		// Block output and sequential create, K/sec and files/s as printed.
		"put_block":  {417854, 233683},
		"seq_create": {25559, 14095},
	}
	found := 0
	for k, key := range keys {
		w, ok := want[key]
		if !ok {
			continue
		}
		found++
		names, vals := barValues(runs, grid, k)
		if strings.Join(names, ",") != "A,B" || len(vals) != 2 {
			t.Fatalf("%s: bars %v %v, want one per run, A and B", key, names, vals)
		}
		for i := range 2 {
			if vals[i] != w[i] {
				t.Errorf("%s: bar %s is %v, the report says %v (%s)", key, names[i], vals[i], w[i], proto[key].Unit)
			}
		}
	}
	if found != len(want) {
		t.Fatalf("found %d of the columns %v among %v", found, want, keys)
	}
	// +++++ (too short to measure) gives no bar.
	for k, key := range keys {
		if key == "getc" || key == "get_block" || key == "seeks" {
			if _, vals := barValues(runs, grid, k); len(vals) != 0 {
				t.Errorf("%s: %d bars, want none for +++++", key, len(vals))
			}
		}
	}
}

// TestLatencyLines checks the latency chart's points against the results'
// percentiles: for fs at p50, p90, p99, p99.9 and max; for block at every
// percentile fio reports. A bonnie++ text report gives only the maximum,
// which makes no line.
func TestLatencyLines(t *testing.T) {
	if lines := latencyLines(load(t, "compare/bonnie-1.96-ssd-840pro-vs-m4.txt")[0]); len(lines) != 0 {
		t.Errorf("%d latency lines from a report that gives only maxima", len(lines))
	}
	fs := load(t, "result/fs.json")[0]
	lines := latencyLines(fs)
	if len(lines) != len(fs.FS.Runs[0].Tests) {
		t.Fatalf("%d lines for %d tests", len(lines), len(fs.FS.Runs[0].Tests))
	}
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
			if p.X != float64(k) || p.Y != float64(want[k])/1e3 {
				t.Errorf("%s point %d: (%v, %v), want (%d, %v us)", l.Name, k, p.X, p.Y, k, float64(want[k])/1e3)
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
			if l.XY[i].X != pc.P || l.XY[i].Y != float64(pc.Value)/1e3 {
				t.Errorf("%s point %d: (%v, %v), want (%v, %v us)", l.Name, i, l.XY[i].X, l.XY[i].Y, pc.P, float64(pc.Value)/1e3)
			}
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
