package blockbench

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/blocksum"
	"github.com/clydebench/clyde/internal/cpuclock"
	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/result"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/block")

const goldenDir = "../testdata/block"

// syntheticWorkers is what wl's workers would have measured over seconds
// seconds on a clock that ticks exactly: IOPS per worker from iops(second),
// latencies drawn from a seeded lognormal around meanNs (a tenth of each in
// submission where the engine has that stage). It returns the workers and
// their recorders merged, as lanes.Run merges them.
func syntheticWorkers(wl *workload, seconds int, iops func(sec int) int64, meanNs float64, seed uint64) ([]*worker, []*latency.Recorder) {
	rng := rand.New(rand.NewPCG(seed, 7))
	var out []*worker
	merged := make([]*latency.Recorder, nRecs)
	for k := range merged {
		merged[k] = latency.New()
	}
	for i := range wl.NumJobs {
		w := newWorker(wl, i)
		for sec := range seconds {
			// Two mark windows a second, the I/Os split between them.
			for half := range marksPerSample {
				n := iops(sec) / int64(marksPerSample)
				if half == 0 {
					n += iops(sec) % int64(marksPerSample)
				}
				for range n {
					dir := dirRead
					switch {
					case wl.RW.Mixed() && rng.IntN(100) >= wl.RWMixRead:
						dir = dirWrite
					case !wl.RW.Mixed() && wl.RW.Writes():
						dir = dirWrite
					}
					lat := max(10, int64(meanNs*(0.5+rng.ExpFloat64()*0.5)))
					w.complete(dir, int(wl.BS), int(wl.BS), 0, 0, lat/10, lat)
					if wl.engine.queues() {
						w.markDepth(wl.depth)
					}
				}
				if wl.engine.queues() {
					w.markReap(int(n))
				}
				at := int64(sec)*int64(time.Second) + int64(half+1)*markEvery
				w.marks = append(w.marks, mark{atNs: at, ios: w.ios, bytes: w.bytes})
			}
		}
		w.endNs = int64(seconds) * int64(time.Second)
		w.thread = syntheticThread(seconds, i)
		out = append(out, w)
		for k, r := range w.recs {
			merged[k].Merge(r)
		}
	}
	return out, merged
}

// syntheticThread is worker i's own thread over seconds seconds: a fifth
// of a CPU in user time and most of one in the kernel, as a psync or
// io_uring worker on tmpfs; apart from fixedCPU, the process's.
func syntheticThread(seconds, i int) threadCPU {
	return threadCPU{used: cpuclock.Usage{User: time.Duration(seconds) * 200 * time.Millisecond,
		Sys: time.Duration(seconds) * 700 * time.Millisecond, Ctx: int64(seconds)*150 + int64(i), Minf: 12},
		ns: int64(seconds) * int64(time.Second), ok: true}
}

// resolvedForTest is w as RunPlan would resolve it on a region of size
// bytes, without a target, with fio's shape.
func resolvedForTest(w Workload, size int64) *workload {
	e, _ := engineByName(w.IOEngine)
	w.Offset, w.Size = 0, size
	return &workload{Workload: w, engine: e, depth: w.IODepth, shape: fioShape}
}

var fixedCPU = cpuclock.Sample{Elapsed: 5 * time.Second, CPU: cpuclock.Usage{User: 400 * time.Millisecond, Sys: 1900 * time.Millisecond}, CPUKnown: true}

func fixtureBlock() result.Block {
	return result.Block{
		FioVersion: result.FioVersionSlot("test"), SchemaVersion: result.SchemaVersion, Kind: "block",
		Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Format(result.FioTime),
		Provenance: result.Provenance{Tool: "clyde", Version: "test", CommandLine: []string{"clyde", "block"}, Hostname: "host",
			OS: "linux", Arch: "amd64", CPUs: 2, StartTime: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		Timestamp: 1767323045, TimestampMs: 1767323045000,
		Target: result.BlockTarget{Path: "/dev/shm/clyde.tmp", ResolvedPath: "/dev/shm/clyde.tmp", Kind: "file", Created: true, SizeBytes: 1 << 30},
	}
}

// goldenJob is a randrw job whose rate falls by a fifth over the run.
func goldenJob() result.Block {
	wl := resolvedForTest(Workload{Name: "randrw", RW: RandRW, RWMixRead: 70, BS: 4096, IODepth: 32, NumJobs: 2,
		IOEngine: EngineIOUring, Runtime: 5 * time.Second, TimeBased: true, Buffer: Buffer{Kind: BufferRandom}, Seed: 42}, 1<<30)
	workers, recs := syntheticWorkers(wl, 5, func(sec int) int64 { return 2000 - int64(sec)*100 }, 90_000, 42)
	b := fixtureBlock()
	b.Jobs = []result.BlockJob{summarize(wl, workers, recs, fixedCPU)}
	blocksum.ReportGroups(b.Jobs, 0, fioShape)
	return b
}

// goldenPlanJobs runs the first workload of each group of pl on synthetic
// workers, the group's number seeding them: throughput grows with block
// size and queue depth until it saturates (the bs-sweep preset's golden,
// presets_golden_ext_test.go).
func goldenPlanJobs(pl Plan) []result.BlockJob {
	var jobs []result.BlockJob
	for i, g := range pl.Groups {
		wl := resolvedForTest(g[0], 1<<30)
		load := int64(wl.depth * wl.NumJobs)
		perIO := 20_000 + float64(wl.BS)/2 // ns
		iops := min(int64(float64(load)*1e9/perIO), 3_000_000_000/wl.BS) / int64(wl.NumJobs) / 20
		workers, recs := syntheticWorkers(wl, 2, func(int) int64 { return iops + int64(i%3) }, perIO*float64(min(load, 4)), uint64(i))
		jobs = append(jobs, summarize(wl, workers, recs, fixedCPU))
		blocksum.ReportGroups(jobs[i:], i, fioShape)
	}
	return jobs
}

func checkGolden(t *testing.T, name string, v any) {
	t.Helper()
	// As blockreport.JSON writes it: fio's ">=64" unescaped.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	got := buf.Bytes()
	path := filepath.Join(goldenDir, name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./blockbench -run Golden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; rerun with -update if the change is intended\n%s", name, got)
	}
}

func TestSummarizeGolden(t *testing.T) {
	b := goldenJob()
	checkGolden(t, "result.json", b)
	job := b.Jobs[0]
	if !job.Trend.Known || job.Trend.DropPct < 15 || job.Trend.DropPct > 25 {
		t.Errorf("trend %+v, want a drop near 20%%", job.Trend)
	}
	if job.JobRuntime != 5000 || job.Read.Runtime != 5000 {
		t.Errorf("runtime %d ms, want 5000", job.JobRuntime)
	}
	if want := float64(job.Read.TotalIOs) / 5; job.Read.IOPS != want {
		t.Errorf("iops %.3f, want total_ios/5s = %.3f", job.Read.IOPS, want)
	}
	if job.Read.BW != job.Read.BWBytes/1024 {
		t.Errorf("bw %d, want bw_bytes/1024", job.Read.BW)
	}
	// Two workers, ten 500 ms windows each: fio's group_reporting counts
	// every clone's samples.
	if len(job.Series) != 5 || job.Read.IOPSSamples != 20 {
		t.Errorf("%d seconds and %d iops samples, want 5 and 20", len(job.Series), job.Read.IOPSSamples)
	}
}

func TestPercentileKeysMatchFio(t *testing.T) {
	// A missing golden is a failure, not a skip: a skip here once hid
	// that the check had stopped running.
	raw, err := os.ReadFile(filepath.Join(goldenDir, "result.json"))
	if err != nil {
		t.Fatalf("%v (run go test ./blockbench -run Golden -update)", err)
	}
	var doc struct {
		Jobs []struct {
			Read struct {
				ClatNs struct {
					Percentile map[string]int64 `json:"percentile"`
				} `json:"clat_ns"`
			} `json:"read"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	// fio's jq paths must work on clyde's JSON.
	for _, k := range []string{"1.000000", "50.000000", "99.000000", "99.990000"} {
		if _, ok := doc.Jobs[0].Read.ClatNs.Percentile[k]; !ok {
			t.Errorf("percentile key %q missing", k)
		}
	}
}

func asUsage(err error, ue **result.UsageError) bool { return errors.As(err, ue) }
