package orion

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/result"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata and ../testdata/block/profile-orion.json")

// fixedClock is when the golden tests "ran": the date in the file names.
var fixedClock = func() time.Time { return time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC) }

// syntheticRun stands in for blockbench.RunPlan: each workload's figures
// come from a model of a drive (small IOPS grow with their load and shrink
// with the large load beside them; large MB/s saturate), with latencies drawn
// from a seeded RNG, so the files come out the same on every machine.
func syntheticRun(_ context.Context, p blockbench.Plan) (*result.Block, error) {
	res := &result.Block{SchemaVersion: result.SchemaVersion, Kind: "block",
		Provenance: result.Provenance{Tool: "clyde", Version: "test", Hostname: "host", OS: "linux", Arch: "amd64"}}
	for gi, g := range p.Groups {
		var smallLoad, largeLoad int
		for _, w := range g {
			if w.BS >= 128<<10 {
				largeLoad += w.IODepth * w.NumJobs
			} else {
				smallLoad += w.IODepth * w.NumJobs
			}
		}
		for _, w := range g {
			load := float64(w.IODepth * w.NumJobs)
			var iops float64
			if w.BS >= 128<<10 {
				iops = 400 * load / (load + 2) / (1 + 0.02*float64(smallLoad))
			} else {
				iops = 9000 * load / (load + 3) / (1 + 0.3*float64(largeLoad)) * math.Pow(8192/float64(w.BS), 0.3)
			}
			secs := w.Runtime.Seconds()
			if !w.TimeBased {
				secs = 1
			}
			res.Jobs = append(res.Jobs, syntheticJob(w, gi, iops, secs, w.Seed))
		}
		if len(g) > 1 {
			res.Groups = append(res.Groups, result.BlockGroup{GroupID: gi})
		}
	}
	return res, nil
}

func syntheticJob(w blockbench.Workload, group int, iops, secs float64, seed uint64) result.BlockJob {
	rng := rand.New(rand.NewPCG(seed, 3))
	n := int64(math.Round(iops * secs))
	var recs [2]*latency.Recorder
	var ios [2]int64
	load := float64(w.IODepth * w.NumJobs)
	for i := int64(0); i < n; i++ {
		d := 0
		if w.RW.Mixed() && rng.IntN(100) >= w.RWMixRead || !w.RW.Mixed() && w.RW.Writes() {
			d = 1
		}
		if recs[d] == nil {
			recs[d] = latency.New()
		}
		mean := load / iops * 1e9
		recs[d].Record(time.Duration(mean * (0.5 + rng.ExpFloat64()*0.5)))
		ios[d]++
	}
	j := result.BlockJob{JobName: w.Name, GroupID: group, ElapsedNs: int64(secs * 1e9),
		Config: result.BlockJobConfig{RW: string(w.RW), RWMixRead: w.RWMixRead, BSBytes: w.BS, IODepth: w.IODepth,
			NumJobs: w.NumJobs, IOEngine: "io_uring", Direct: w.Direct, RuntimeNs: int64(w.Runtime), TimeBased: w.TimeBased, Seed: w.Seed}}
	for d, out := range []*result.BlockDir{&j.Read, &j.Write} {
		if ios[d] == 0 {
			continue
		}
		out.TotalIOs, out.IOBytes = ios[d], ios[d]*w.BS
		out.IOPS = float64(ios[d]) / secs
		out.BWBytes = int64(math.Round(float64(out.IOBytes) / secs))
		out.RuntimeNs = j.ElapsedNs
		out.Lat = result.LatNsFrom(recs[d], latency.FioPercentiles)
	}
	return j
}

// goldenLUN is a LUN file of 256 MiB, made sparse in dir, named in T.lun.
func goldenLUN(t *testing.T, dir, name string) string {
	t.Helper()
	lun := filepath.Join(dir, name+".img")
	f, err := os.Create(lun)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(256 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.WriteFile(filepath.Join(dir, name+".lun"), []byte(lun+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return lun
}

func withSyntheticRun(t *testing.T) {
	t.Helper()
	runPlan = syntheticRun
	t.Cleanup(func() { runPlan = blockbench.RunPlan })
}

// TestGoldenFiles runs tests on the synthetic drive with a fixed clock and
// compares the files written with testdata/<case>/. LUN paths in the
// summary are made relative to the temporary directory.
func TestGoldenFiles(t *testing.T) {
	withSyntheticRun(t)
	cases := []struct {
		name string
		edit func(*Options)
	}{
		{"normal", func(o *Options) { o.Run = RunNormal }},
		{"advanced-seq-write", func(o *Options) {
			o.Run, o.Matrix, o.Type, o.Write, o.NumDisks, o.NumLarge, o.NumSmall = RunAdvanced, MatrixPoint, "seq", 30, 2, 3, 4
			o.CacheSize, o.DestroyData = 16, true
		}},
		{"size-sweep", func(o *Options) { o.Run, o.SizeSmall = RunOLTP, []int{1, 2, 4, 8} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			goldenLUN(t, dir, "ssd")
			o := DefaultOptions(RunSimple)
			o.TestName, o.OutputDir, o.Now, o.Duration = filepath.Join(dir, "ssd"), dir, fixedClock, 2*time.Second
			tc.edit(&o)
			o.Command = "-run " + o.Run + " -testname ssd"
			res := runTest(t, o, true)
			written, _ := filepath.Glob(filepath.Join(dir, "ssd_*"))
			if want := len(FileSuffixes) * len(o.SizeSmall); len(written) != want {
				t.Fatalf("wrote %d files, want %d: %v", len(written), want, written)
			}
			if tc.name == "normal" {
				// The same run as a saved result: internal/blockreport's
				// input for clyde report's text of an ORION run.
				for i := range res.Orion.LUNs {
					res.Orion.LUNs[i].Path = filepath.Base(res.Orion.LUNs[i].Path)
				}
				res.Orion.TestName = "ssd"
				for i := range res.Jobs { // the histograms make it 170 KB; the text needs none
					for _, d := range []*result.BlockDir{&res.Jobs[i].Read, &res.Jobs[i].Write} {
						d.Lat.HDR = ""
					}
				}
				got, err := json.MarshalIndent(res, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				checkGoldenFile(t, "../testdata/block/orion-normal.json", append(got, '\n'))
			}
			for _, path := range written {
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				got = bytes.ReplaceAll(got, []byte(dir+string(filepath.Separator)), nil)
				checkGoldenFile(t, filepath.Join("testdata", tc.name, filepath.Base(path)), got)
			}
		})
	}
}

func checkGoldenFile(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./orion -run Golden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (rerun with -update if intended):\n%s", path, got)
	}
}

// The files have ORION's shape whatever the numbers: the CSV headers, one
// row per large load, and the summary's closing lines, in ORION's order.
func TestFileShapes(t *testing.T) {
	withSyntheticRun(t)
	dir := t.TempDir()
	goldenLUN(t, dir, "t")
	o := DefaultOptions(RunNormal)
	o.TestName, o.OutputDir, o.Now, o.Duration = filepath.Join(dir, "t"), dir, fixedClock, time.Second
	res := runTest(t, o, true)
	read := func(suffix string) []string {
		b, err := os.ReadFile(filepath.Join(dir, "t_20260314_1509"+suffix))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	}
	iops := read("_iops.csv")
	if iops[0] != "Large/Small,      1,      2,      3,      4,      5" || len(iops) != 4 {
		t.Errorf("_iops.csv: %q, want ORION's header and rows for Large=0, 1, 2", iops)
	}
	mbps := read("_mbps.csv")
	if mbps[0] != "Large/Small,      0,      1,      2,      3,      4,      5" || len(mbps) != 3 || !strings.HasPrefix(mbps[1], "          1,") {
		t.Errorf("_mbps.csv: %q, want columns 0..5 and rows Large=1, 2", mbps)
	}
	for _, row := range iops[1:] {
		if n := strings.Count(row, ","); n != 5 {
			t.Errorf("normal run: row %q has %d values, want one per small load", row, n)
		}
	}
	sum := read("_summary.txt")
	tail := sum[len(sum)-3:]
	for i, prefix := range []string{"Maximum Large MBPS=", "Maximum Small IOPS=", "Minimum Small Latency="} {
		if !strings.HasPrefix(tail[i], prefix) || !strings.Contains(tail[i], " @ Small=") || !strings.Contains(tail[i], " and Large=") {
			t.Errorf("summary line %d from the end %q, want %s... @ Small=... and Large=...", 3-i, tail[i], prefix)
		}
	}
	if !strings.Contains(tail[2], " usecs @ ") {
		t.Errorf("latency line %q has no unit", tail[2])
	}
	// Mixed points: both kinds of figures at once.
	for _, p := range res.Orion.Sets[0].Points {
		if p.Small > 0 && p.Large > 0 && (p.SmallIOPS <= 0 || p.LargeMBPS <= 0 || len(p.Jobs) != 2) {
			t.Errorf("mixed point %+v lacks a figure", p)
		}
	}
}

// clyde block --profile orion goes through the same planner: ORION's
// simple level for one disk. Its result is also the input of
// internal/blockreport's golden test for the preset's table.
func TestRunJobIsTheSimpleLevel(t *testing.T) {
	withSyntheticRun(t)
	j := blockbench.NewJob("/dev/shm/clyde.tmp")
	j.IOEngine, j.Size = blockbench.EngineIOUring, 1<<30
	res, err := RunJob(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	if res.Profile == nil || len(res.Profile.Rows) != 7 || res.Orion.Run != RunSimple || res.Orion.Matrix != MatrixBasic {
		t.Fatalf("profile %+v orion %+v: want the 7 points of -run simple", res.Profile, res.Orion)
	}
	for i, r := range res.Profile.Rows {
		want := Point{i + 1, 0}
		if i >= 5 {
			want = Point{0, i - 4}
		}
		if r.Label != want.String() || r.Load != want.Small+want.Large || r.IOPS <= 0 {
			t.Errorf("row %d %+v, want %v", i, r, want)
		}
		if r.RW != "randread" || r.RWMixRead != 100 {
			t.Errorf("row %d says rw=%s rwmixread=%d, want randread and 100%% reads", i, r.RW, r.RWMixRead)
		}
	}
	res.Provenance.StartTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	res.Timestamp, res.TimestampMs = 1767323045, 1767323045000
	res.Target = result.BlockTarget{Path: "/dev/shm/clyde.tmp", ResolvedPath: "/dev/shm/clyde.tmp", Kind: "file", Created: true, SizeBytes: 1 << 30}
	res.Orion.Started, res.Orion.Sets[0].Prefix = "20260102_0304", "block_20260102_0304"
	got, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGoldenFile(t, "../testdata/block/profile-orion.json", append(got, '\n'))
}

// TestInterruptedPointIsMarked cuts a normal run short in its fourth data
// point, as ^C does: blockbench returns the groups that finished and the
// interrupted one with what it did. The cut point's cells carry ORION's
// files' mark, the summary says what it means and its peaks leave it out.
func TestInterruptedPointIsMarked(t *testing.T) {
	const cutGroup = 3
	runPlan = func(ctx context.Context, p blockbench.Plan) (*result.Block, error) {
		p.Groups = p.Groups[:cutGroup+1]
		res, _ := syntheticRun(ctx, p)
		for i := range res.Jobs {
			if j := &res.Jobs[i]; j.GroupID == cutGroup {
				// A tenth of the point ran, at ten times the rate: were
				// it taken for a whole point, it would be the maximum.
				j.Interrupted, j.ElapsedNs = true, j.ElapsedNs/10
				j.Read.IOPS, j.Read.BWBytes = j.Read.IOPS*10, j.Read.BWBytes*10
			}
		}
		res.Interrupted = true
		return res, context.Canceled
	}
	t.Cleanup(func() { runPlan = blockbench.RunPlan })
	dir := t.TempDir()
	goldenLUN(t, dir, "ssd")
	o := DefaultOptions(RunNormal)
	o.TestName, o.OutputDir, o.Now, o.Duration = filepath.Join(dir, "ssd"), dir, fixedClock, 2*time.Second
	o.Command = "-run normal -testname ssd"
	tt, err := Prepare(o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tt.Run(context.Background())
	if !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("run: %v, %v", res, err)
	}
	pts := res.Orion.Sets[0].Points
	if len(pts) != cutGroup+1 || !pts[cutGroup].Partial || pts[cutGroup-1].Partial {
		t.Fatalf("points %+v: want %d, the last one partial", pts, cutGroup+1)
	}
	if err := tt.WriteFiles(context.Background(), io.Discard, res); err != nil {
		t.Fatal(err)
	}
	written, _ := filepath.Glob(filepath.Join(dir, "ssd_*"))
	for _, path := range written {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got = bytes.ReplaceAll(got, []byte(dir+string(filepath.Separator)), nil)
		checkGoldenFile(t, filepath.Join("testdata", "interrupted", filepath.Base(path)), got)
	}
	sum, _ := os.ReadFile(filepath.Join(dir, "ssd_20260314_1509_summary.txt"))
	cut := pts[cutGroup]
	if want := fmt.Sprintf("Maximum Small IOPS=%.0f", cut.SmallIOPS); strings.Contains(string(sum), want) {
		t.Errorf("the cut point's rate is taken as the maximum:\n%s", sum)
	}
	if !strings.Contains(string(sum), fmt.Sprintf("Data point Small=%d and Large=%d was cut short", cut.Small, cut.Large)) {
		t.Errorf("the summary does not name the cut point:\n%s", sum)
	}
}
