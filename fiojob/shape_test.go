package fiojob

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

func distSum(d result.Dist) float64 {
	var s float64
	for _, b := range d {
		s += b.Value
	}
	return s
}

// TestFioJobFields runs each engine for real and checks the figures only
// fio's readers look at: the depth distributions say what ran, the
// latency buckets cover every I/O, fio's 500 ms samples are there.
func TestFioJobFields(t *testing.T) {
	for _, tc := range []struct {
		engine blockbench.Engine
		depth  int
		level  string // where the depth distribution must peak
	}{{blockbench.EnginePsync, 1, "1"}, {blockbench.EngineIOUring, 8, "8"}} {
		t.Run(string(tc.engine), func(t *testing.T) {
			if tc.engine == blockbench.EngineIOUring && blockbench.EngineAvailable(tc.engine) != nil {
				clydetest.Skip(t, "io_uring not available here")
			}
			j := blockbench.NewJob(filepath.Join(t.TempDir(), "f"))
			j.RW, j.Size, j.IOEngine, j.IODepth, j.Runtime, j.Shape = blockbench.RandRW, 4<<20, tc.engine, tc.depth, 600*time.Millisecond, Shape
			j.CommandLine = []string{"clyde"}
			res, err := blockbench.Run(context.Background(), j)
			if err != nil {
				t.Fatal(err)
			}
			job := res.Jobs[0]
			if d := distSum(job.IODepthLevel); d < 99 || d > 101 {
				t.Errorf("iodepth_level sums to %.2f%%: %v", d, job.IODepthLevel)
			}
			best, bestV := "", -1.0
			for _, b := range job.IODepthLevel {
				if b.Value > bestV {
					best, bestV = b.Key, b.Value
				}
			}
			if tc.engine == blockbench.EnginePsync && best != tc.level {
				t.Errorf("iodepth_level peaks at %s, want %s: %v", best, tc.level, job.IODepthLevel)
			}
			if v, _ := job.IODepthLevel.At(">=64"); v != 0 {
				t.Errorf("iodepth_level >=64 is %v at depth %d", v, tc.depth)
			}
			if v, _ := job.IODepthSubmit.At("4"); v != 100 {
				t.Errorf("iodepth_submit %v: clyde submits one I/O per call", job.IODepthSubmit)
			}
			all := distSum(job.LatencyNs) + distSum(job.LatencyUs) + distSum(job.LatencyMs)
			if all < 99 || all > 101 {
				t.Errorf("latency_ns/us/ms sum to %.2f%%", all)
			}
			for _, d := range []result.BlockDir{job.Read, job.Write} {
				// 600 ms: the first 500 ms window moved data; a stall can
				// make the closing one long enough to count too (which
				// windows count is TestFioSampleWindows's, on a fixed clock).
				if d.IOPSSamples < 1 || d.IOPSSamples > 2 || d.BWSamples != d.IOPSSamples || d.IOPSMin > d.IOPSMax || d.BWAgg <= 0 || d.BWAgg > 100 {
					t.Errorf("samples %d/%d, iops %d..%d, bw_agg %.1f", d.IOPSSamples, d.BWSamples, d.IOPSMin, d.IOPSMax, d.BWAgg)
				}
				if len(d.Clat.Percentile) != 17 || len(d.Lat.Percentile) != 0 || len(d.Slat.Percentile) != 0 {
					t.Errorf("percentiles under clat %d, lat %d, slat %d; fio's defaults are 17, 0, 0",
						len(d.Clat.Percentile), len(d.Lat.Percentile), len(d.Slat.Percentile))
				}
			}
			if tc.engine == blockbench.EngineIOUring && job.Read.Slat.N == 0 {
				t.Error("io_uring has a submission stage, and slat_ns is empty")
			}
			if job.Options.Get("filename") != j.Filename || job.Options.Get("bs") != "4k" || job.Options.Get("size") != "4m" {
				t.Errorf("job options %v", job.Options)
			}
			if !strings.HasPrefix(res.FioVersion, "clyde-") || !strings.Contains(res.FioVersion, "fio-3.33") || res.Time == "" {
				t.Errorf("fio version %q, time %q", res.FioVersion, res.Time)
			}
		})
	}
}

// TestDepthCounting checks the depth rule, the same for every engine, on
// the distributions fio 3.33 reports for the same jobs (fio --ioengine=X
// --iodepth=N, 256 I/Os): an I/O that completes inside its queue call is
// at depth 1; only an engine without a commit stage also counts it as a
// submission and a completion.
func TestDepthCounting(t *testing.T) {
	const ios = 256
	counted := func(slot int) []int64 { h := make([]int64, 8); h[slot] = ios; return h }
	for _, tc := range []struct {
		name                     string
		queues                   bool
		inflight, reaped, submit []int64
		level, submits, reaps    string // fio's iodepth_level, iodepth_submit, iodepth_complete
	}{
		// psync, mmap: fio's td_io_queue marks depth, submit and complete.
		{name: "psync", level: "1:100", submits: "4:100", reaps: "4:100"},
		// null at iodepth 1 is FIO_SYNCIO with a commit hook: depth only.
		{name: "null iodepth 1", queues: true, level: "1:100", submits: "", reaps: ""},
		// null at iodepth 8: each I/O queued, committed and reaped alone.
		{name: "null iodepth 8", queues: true, inflight: counted(1), reaped: counted(1), level: "1:100", submits: "4:100", reaps: "4:100"},
		{name: "io_uring iodepth 8", queues: true, inflight: counted(7), reaped: counted(1), submit: counted(1), level: "4:100", submits: "4:100", reaps: "4:100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &blockbench.JobMeasure{Queues: tc.queues, Workers: []blockbench.WorkerMeasure{{
				IOs: [2]int64{ios, 0}, InFlight: tc.inflight, Reaped: tc.reaped, Submitted: tc.submit}}}
			f := jobFields(m)
			for _, d := range []struct {
				name string
				got  result.Dist
				want string
			}{{"iodepth_level", f.IODepthLevel, tc.level}, {"iodepth_submit", f.IODepthSubmit, tc.submits}, {"iodepth_complete", f.IODepthComplete, tc.reaps}} {
				var nonzero []string
				for _, b := range d.got {
					if b.Value != 0 {
						nonzero = append(nonzero, b.Key+":"+strconv.FormatFloat(b.Value, 'f', -1, 64))
					}
				}
				if got := strings.Join(nonzero, " "); got != d.want {
					t.Errorf("%s %q, fio's %q", d.name, got, d.want)
				}
			}
		})
	}
}

// TestFioSampleWindows checks fio's sample rule on marks taken at fixed
// times: one sample per window that moved data, a closing window shorter
// than half of MarkEvery left out, the workers' samples summed.
func TestFioSampleWindows(t *testing.T) {
	const ms = int64(time.Millisecond)
	at := func(t int64, reads int64) blockbench.Mark {
		return blockbench.Mark{AtNs: t * ms, IOs: [2]int64{reads}, Bytes: [2]int64{reads * 4096}}
	}
	cases := []struct {
		name     string
		marks    [][]blockbench.Mark // per worker
		samples  int
		min, max int64 // IOPS
	}{
		{"one window, a 100 ms tail left out", [][]blockbench.Mark{{at(0, 0), at(500, 500), at(600, 600)}}, 1, 1000, 1000},
		{"a 250 ms tail counts", [][]blockbench.Mark{{at(0, 0), at(500, 500), at(750, 1000)}}, 2, 1000, 2000},
		{"a 249 ms tail does not", [][]blockbench.Mark{{at(0, 0), at(500, 500), at(749, 1000)}}, 1, 1000, 1000},
		{"a window without data is no sample", [][]blockbench.Mark{{at(0, 0), at(500, 0), at(1000, 250)}}, 1, 500, 500},
		{"a late tick makes one long window", [][]blockbench.Mark{{at(0, 0), at(800, 800)}}, 1, 1000, 1000},
		{"two workers summed", [][]blockbench.Mark{{at(0, 0), at(500, 500)}, {at(0, 0), at(500, 250)}}, 2, 1500, 1500}, // min+min, max+max
		{"never measured", [][]blockbench.Mark{{at(0, 0)}}, 0, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ws []blockbench.WorkerMeasure
			for _, m := range tc.marks {
				ws = append(ws, blockbench.WorkerMeasure{Marks: m})
			}
			var d result.BlockDir
			sampleStats(&d, ws, 0)
			if d.IOPSSamples != tc.samples || d.BWSamples != tc.samples || d.IOPSMin != tc.min || d.IOPSMax != tc.max {
				t.Errorf("samples %d/%d, iops %d..%d; want %d, %d..%d", d.IOPSSamples, d.BWSamples, d.IOPSMin, d.IOPSMax, tc.samples, tc.min, tc.max)
			}
		})
	}
}

// TestMixedSamples: fio's "mixed" bw and iops statistics are the
// directions' summed as sum_stat's pure sum (minimums, maximums, means,
// samples added), and its bw_agg is of the mixed group's bandwidth in
// mixed mode, of the reads' in both, as fio's direction 0.
func TestMixedSamples(t *testing.T) {
	const ms = int64(time.Millisecond)
	at := func(t, reads, writes int64) blockbench.Mark {
		return blockbench.Mark{AtNs: t * ms, IOs: [2]int64{reads, writes}, Bytes: [2]int64{reads * 4096, writes * 4096}}
	}
	ws := []blockbench.WorkerMeasure{{Marks: []blockbench.Mark{at(0, 0, 0), at(500, 500, 100), at(1000, 750, 300)}}}
	var r, w, m result.BlockDir
	sampleStats(&r, ws, 0)
	sampleStats(&w, ws, 1)
	mixedSampleStats(&m, ws, []int{0, 1})
	if m.IOPSSamples != r.IOPSSamples+w.IOPSSamples || m.IOPSMin != r.IOPSMin+w.IOPSMin || m.IOPSMax != r.IOPSMax+w.IOPSMax ||
		m.IOPSMean != r.IOPSMean+w.IOPSMean || m.BWMean != r.BWMean+w.BWMean {
		t.Errorf("mixed %+v; read %+v, write %+v", m, r, w)
	}
	if m.IOPSMin != 500+200 || m.IOPSMax != 1000+400 {
		t.Errorf("mixed iops %d..%d, want 700..1400", m.IOPSMin, m.IOPSMax)
	}
	g := &result.BlockGroup{Read: result.BlockDir{BWBytes: 100 << 20}}
	for _, only := range []bool{true, false} {
		j := &result.BlockJob{Mixed: &result.BlockDir{BWSamples: 1, BWMean: 1024, IOBytes: 1 << 30, RuntimeNs: int64(time.Second)}, MixedOnly: only}
		setBWAgg([]*result.BlockJob{j}, g)
		want := 1024 * 100 / float64(100<<10) // of the reads' group bandwidth
		if only {
			want = 1024 * 100 / float64(1<<20) // of the mixed group's, 1 GiB/s
		}
		if j.Mixed.BWAgg != want {
			t.Errorf("mixed only %v: bw_agg %v, want %v", only, j.Mixed.BWAgg, want)
		}
	}
}

// TestDistributionEcho: the result's job options say what ran, in fio's
// syntax.
func TestDistributionEcho(t *testing.T) {
	zone := func(access, sizePct int, size int64) blockbench.DistZone {
		return blockbench.DistZone{AccessPct: access, SizePct: sizePct, Size: size}
	}
	for _, c := range []struct {
		d    blockbench.Distribution
		want string
	}{
		{blockbench.Distribution{Kind: blockbench.DistZipf, Param: 1.2}, "zipf:1.2"},
		{blockbench.Distribution{Kind: blockbench.DistNormal, Param: 10, Center: 0.5, HasCenter: true}, "normal:10:0.5"},
		{blockbench.Distribution{Kind: blockbench.DistZoned, Zones: [2][]blockbench.DistZone{{zone(60, 10, 0), zone(40, 90, 0)}, {zone(60, 10, 0), zone(40, 90, 0)}}}, "zoned:60/10:40/90"},
		{blockbench.Distribution{Kind: blockbench.DistZoned, Zones: [2][]blockbench.DistZone{{zone(100, 100, 0)}, {zone(50, 50, 0), zone(50, 50, 0)}}}, "zoned:100/100,50/50:50/50"},
		{blockbench.Distribution{Kind: blockbench.DistZonedAbs, Zones: [2][]blockbench.DistZone{{zone(100, 0, 1<<20)}, {zone(100, 0, 1<<20)}}}, "zoned_abs:100/1m"},
	} {
		w := &blockbench.Workload{RW: blockbench.RandRead, BS: 4096, Size: 1 << 20, Distribution: c.d, Zones: blockbench.StridedZones{Size: 64 << 10}}
		m := map[string]string{}
		distOptions(w, func(k, v string) { m[k] = v })
		if m["random_distribution"] != c.want || m["zonemode"] != "strided" || m["zonesize"] != "64k" || m["zonerange"] != "64k" {
			t.Errorf("echo %v, want random_distribution=%s and the zones", m, c.want)
		}
	}
}

// TestFioLevels checks fio's io_u_map buckets drawn from full-resolution
// counts (a worker's, slot n for n I/Os): depths 1, 2-3, 4-7 ... 64 and more;
// I/Os per call 0, 1-4, 5-8 ... more than 64.
func TestFioLevels(t *testing.T) {
	h := make([]int64, 302) // one event of every n from 0 to 301
	for n := range h {
		h[n] = 1
	}
	if got, want := fioLevels(h, depthBucket), [7]int64{2, 2, 4, 8, 16, 32, 238}; got != want {
		t.Errorf("depth levels %v, want %v", got, want)
	}
	if got, want := fioLevels(h, batchBucket), [7]int64{1, 4, 4, 8, 16, 32, 237}; got != want {
		t.Errorf("batch levels %v, want %v", got, want)
	}
	for n, want := range map[int]int{-1: 0, 0: 0, 1: 0, 2: 1, 3: 1, 4: 2, 63: 5, 64: 6, 1000: 6} {
		if got := depthBucket(n); got != want {
			t.Errorf("depthBucket(%d) = %d, want %d", n, got, want)
		}
	}
	for n, want := range map[int]int{-1: 0, 0: 0, 1: 1, 4: 1, 5: 2, 8: 2, 9: 3, 16: 3, 17: 4, 32: 4, 33: 5, 64: 5, 65: 6} {
		if got := batchBucket(n); got != want {
			t.Errorf("batchBucket(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestMergeWeighsRanksByIOs: a job summed over ranks shows fio's
// distributions of all its I/Os, each rank's weighted by its I/O count
// (fio's client sums its servers' io_u maps), and the 500 ms samples summed
// as fio's clones' are.
func TestMergeWeighsRanksByIOs(t *testing.T) {
	part := func(ios int64, level string, iopsMin int64) result.BlockJob {
		var j result.BlockJob
		j.Read.TotalIOs, j.Read.IOPSMin, j.Read.IOPSSamples = ios, iopsMin, 4
		j.IODepthLevel = dist(depthLabels, make([]int64, 7), 0, 0.1)
		for i := range j.IODepthLevel {
			if j.IODepthLevel[i].Key == level {
				j.IODepthLevel[i].Value = 100
			}
		}
		return j
	}
	parts := []result.BlockJob{part(100, "1", 10), part(300, "8", 30)}
	m := parts[0]
	m.Read.TotalIOs = 400
	if err := Shape.Merge(&m, parts); err != nil {
		t.Fatal(err)
	}
	one, _ := m.IODepthLevel.At("1")
	eight, _ := m.IODepthLevel.At("8")
	if one != 25 || eight != 75 {
		t.Errorf("iodepth_level 1: %v%%, 8: %v%%; want 25 and 75 (100 and 300 I/Os)", one, eight)
	}
	if m.Read.IOPSMin != 40 || m.Read.IOPSSamples != 8 {
		t.Errorf("iops_min %d over %d samples, want 40 over 8 (summed as fio's clones)", m.Read.IOPSMin, m.Read.IOPSSamples)
	}
}
