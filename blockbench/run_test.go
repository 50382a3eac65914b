package blockbench

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// countJob is a job that ends after a fixed number of I/Os, so counts are exact.
func countJob(path string, rw RW, size, bs int64) Job {
	j := NewJob(path)
	j.RW, j.Size, j.BlockSizes = rw, size, []int64{bs}
	j.TimeBased, j.Runtime = false, 0
	return j
}

func TestRunAccountsEveryMode(t *testing.T) {
	const size, bs, numJobs = 1 << 20, 4096, 2
	const perWorker = size / bs
	for _, rw := range []RW{Read, Write, RandRead, RandWrite, ReadWrite, RandRW} {
		t.Run(string(rw), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "target")
			j := countJob(path, rw, size, bs)
			j.NumJobs = numJobs
			res, err := Run(context.Background(), j)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Jobs) != 1 {
				t.Fatalf("got %d jobs, want 1", len(res.Jobs))
			}
			job := res.Jobs[0]
			r, w := job.Read, job.Write
			if got := r.TotalIOs + w.TotalIOs; got != numJobs*perWorker {
				t.Errorf("total_ios read+write = %d, want %d", got, numJobs*perWorker)
			}
			for name, d := range map[string]result.BlockDir{"read": r, "write": w} {
				if d.IOBytes != d.TotalIOs*bs {
					t.Errorf("%s io_bytes = %d, want total_ios*bs = %d", name, d.IOBytes, d.TotalIOs*bs)
				}
				if d.Lat.N != d.TotalIOs {
					t.Errorf("%s lat_ns.N = %d, want total_ios %d", name, d.Lat.N, d.TotalIOs)
				}
				if d.TotalIOs > 0 {
					wantBW := float64(d.IOBytes) * 1e9 / float64(d.RuntimeNs)
					if math.Abs(float64(d.BWBytes)-wantBW) > 1 {
						t.Errorf("%s bw_bytes = %d, want io_bytes/runtime = %.0f", name, d.BWBytes, wantBW)
					}
					if d.Lat.Min > d.Lat.Max || d.Lat.Mean < float64(d.Lat.Min) || d.Lat.Mean > float64(d.Lat.Max) {
						t.Errorf("%s latency min/mean/max out of order: %+v", name, d.Lat)
					}
				}
			}
			switch {
			case !rw.Writes() && w.TotalIOs != 0:
				t.Errorf("%s wrote %d I/Os", rw, w.TotalIOs)
			case !rw.Mixed() && rw.Writes() && r.TotalIOs != 0:
				t.Errorf("%s read %d I/Os", rw, r.TotalIOs)
			case rw.Mixed() && (r.TotalIOs == 0 || w.TotalIOs == 0):
				t.Errorf("%s did not mix: %d reads, %d writes", rw, r.TotalIOs, w.TotalIOs)
			}
			if !res.Target.Created {
				t.Error("target not marked created")
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("created file left behind: %v", err)
			}
		})
	}
}

func TestRandRWReadShare(t *testing.T) {
	for _, mix := range []int{0, 10, 50, 70, 99, 100} {
		t.Run("rwmixread="+strconv.Itoa(mix), func(t *testing.T) {
			j := countJob(filepath.Join(t.TempDir(), "f"), RandRW, 10_000*512, 512)
			j.RWMixRead = mix
			res, err := Run(context.Background(), j)
			if err != nil {
				t.Fatal(err)
			}
			r, w := res.Jobs[0].Read.TotalIOs, res.Jobs[0].Write.TotalIOs
			if r+w != 10_000 {
				t.Fatalf("%d I/Os, want 10000", r+w)
			}
			share := float64(r) / float64(r+w) * 100
			if math.Abs(share-float64(mix)) > 2 {
				t.Errorf("read share %.2f%%, want %d%% within 2 points", share, mix)
			}
		})
	}
}

// queueingEngine is the queueing engine this platform has, or "" with why not.
func queueingEngine() (Engine, error) {
	var errs []error
	for _, e := range []engine{mustEngine(EngineIOUring), mustEngine(EngineWindowsAIO)} {
		err := e.available()
		if err == nil {
			return e.name(), nil
		}
		errs = append(errs, err)
	}
	return "", errors.Join(errs...)
}

func TestEnginesGiveSameCounts(t *testing.T) {
	queued, err := queueingEngine()
	if err != nil {
		clydetest.Skipf(t, "no queueing engine here: %v", err)
	}
	dir := testDir(t)
	for _, rw := range []RW{RandRead, Write, RandRW, ReadWrite} {
		t.Run(string(rw), func(t *testing.T) {
			var got [2][2]int64
			for e, engine := range []Engine{EnginePsync, queued} {
				// A file clyde creates (and removes) for each run:
				// Windows writes to existing files only on Linux's checks.
				j := countJob(filepath.Join(dir, string(rw)+"-"+string(engine)), rw, 2<<20, 4096)
				j.IOEngine, j.IODepth, j.NumJobs, j.RWMixRead = engine, 16, 2, 60
				res, err := Run(context.Background(), j)
				if err != nil {
					t.Fatalf("%s: %v", engine, err)
				}
				got[e] = [2]int64{res.Jobs[0].Read.TotalIOs, res.Jobs[0].Write.TotalIOs}
				if res.Jobs[0].Read.IOBytes != got[e][0]*4096 || res.Jobs[0].Write.IOBytes != got[e][1]*4096 {
					t.Errorf("%s: bytes do not match counts", engine)
				}
			}
			if got[0] != got[1] {
				t.Errorf("psync read/write %v, %s %v", got[0], queued, got[1])
			}
		})
	}
}

func TestWritesStayInRegion(t *testing.T) {
	for _, engine := range []Engine{EnginePsync, EngineIOUring} {
		t.Run(string(engine), func(t *testing.T) {
			if engine == EngineIOUring && uringAvailable() != nil {
				clydetest.Skip(t, "io_uring not available here")
			}
			path := filepath.Join(t.TempDir(), "f")
			if err := os.WriteFile(path, make([]byte, 3<<20), 0o644); err != nil {
				t.Fatal(err)
			}
			j := countJob(path, Write, 1<<20, 64<<10)
			j.Offset, j.IOEngine, j.IODepth = 1<<20, engine, 4
			j.DestroyData = true // an existing file
			res, err := Run(context.Background(), j)
			if err != nil {
				t.Fatal(err)
			}
			if res.Target.Created {
				t.Error("an existing file was marked created")
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("existing file not kept: %v", err)
			}
			zero := make([]byte, 1<<20)
			if !bytes.Equal(data[:1<<20], zero) || !bytes.Equal(data[2<<20:], zero) {
				t.Error("a write landed outside [offset, offset+size)")
			}
			if bytes.Equal(data[1<<20:2<<20], zero) {
				t.Error("the region was not written")
			}
		})
	}
}

func TestCreatedFileIsFilled(t *testing.T) {
	// A read of a created file must hit real blocks: after filling, the file
	// is not sparse. Checked by reading it from inside the job's region.
	path := filepath.Join(t.TempDir(), "f")
	j := countJob(path, Read, 1<<20, 1<<20)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tg, wl := jobTarget(t, j)
	reg := region{offset: wl.Offset, size: wl.Size}
	if err := tg.prepare(ctx, false, Buffer{Kind: BufferRandom}, 1); err != nil {
		t.Fatal(err)
	}
	defer tg.Cleanup()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) != reg.offset+reg.size {
		t.Fatalf("file is %d bytes, want %d", len(data), reg.size)
	}
	if bytes.Count(data, []byte{0}) > len(data)/100 {
		t.Error("random fill left the file mostly zeros")
	}
}

func TestRefusedBeforeCreating(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		job  func(j *Job)
		flag string
	}{
		{"bs larger than default size", func(j *Job) { j.BlockSizes = []int64{2 << 30} }, "--bs"},
		{"uncreatable path", func(j *Job) { j.Filename = filepath.Join(dir, "missing-dir", "f") }, "--filename"},
		{"bs not aligned for direct", func(j *Job) { j.Direct, j.BlockSizes = true, []int64{1000} }, "--bs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := NewJob(filepath.Join(dir, "f"))
			tc.job(&j)
			_, err := Run(context.Background(), j)
			var ue *result.UsageError
			if !errors.As(err, &ue) || ue.Flag != tc.flag {
				t.Fatalf("err = %v, want a usage error for %s", err, tc.flag)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("something was created: %v", entries)
			}
		})
	}
}

// cancelOnIOPS is a Progress writer that cancels the run at the first live
// line with a rate above zero: I/Os were done and published.
type cancelOnIOPS struct{ cancel context.CancelFunc }

var liveIOPS = regexp.MustCompile(`  ([0-9,]+) IOPS`)

func (c cancelOnIOPS) Write(p []byte) (int, error) {
	if m := liveIOPS.FindSubmatch(p); m != nil && string(m[1]) != "0" {
		c.cancel()
	}
	return len(p), nil
}

func TestInterruptKeepsFinishedJobs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	j := NewJob(path)
	j.Size, j.Runtime, j.BlockSizes = 1<<20, 0, []int64{4096, 8192} // no limit: runs until cancelled
	// Cancel once the live line shows I/Os done, not after a while: on a
	// busy machine a while can pass before the first I/O.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	j.Progress = cancelOnIOPS{cancel}
	res, err := Run(ctx, j)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if !res.Interrupted || len(res.Jobs) != 1 || res.Jobs[0].Read.TotalIOs == 0 {
		t.Errorf("interrupted=%v jobs=%d; want the first job with its I/Os", res.Interrupted, len(res.Jobs))
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Error("created file left behind after interruption")
	}
}

func TestRampIsNotCounted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	j := NewJob(path)
	// A runtime long enough that a loaded machine still completes I/O in
	// it (100 ms did not, beside other work on two cores).
	j.Size, j.RampTime, j.Runtime = 1<<20, time.Second, 300*time.Millisecond
	start := time.Now()
	res, err := Run(context.Background(), j)
	wall := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	got := time.Duration(res.Jobs[0].ElapsedNs)
	// The measured span starts when the ramp ends: whatever a busy machine
	// does to either, the ramp took its second of the whole run's wall
	// time, and the span is what is left at most. Counting the ramp would
	// make it the whole run.
	if got > wall-j.RampTime {
		t.Errorf("measured %v of a %v run with a %v ramp; want the span after the ramp only", got, wall, j.RampTime)
	}
}

func TestLoopsDoNotAllocate(t *testing.T) {
	// The record hook and refilled buffers run in the loop too: a
	// per-I/O record sees every completion, a windowed one a window every
	// ms, refill reuses the worker's generator. (fiojob's
	// TestLogsDoNotAllocate holds fio's logs, the hook's implementation, to
	// the same.)
	variants := []struct {
		name  string
		perIO bool
		every int64 // window, ns; 0 for none
		buf   Buffer
		ios   int64
		batch bool // fio's batching loop, on the engines that run it
	}{
		{"plain", false, 0, Buffer{Kind: BufferRandom}, 20_000, false},
		{"per-I/O record, refill", true, 0, Buffer{Kind: BufferRandom, Refill: true}, 3 << 15, false},
		{"windowed record", false, 1e6, Buffer{Kind: BufferCompressible, CompressPct: 50, Refill: true}, 20_000, false},
		{"batched, per-I/O record", true, 0, Buffer{Kind: BufferRandom, Refill: true}, 20_000, true},
	}
	for _, engine := range []Engine{EnginePsync, EngineIOUring, EngineLibaio, EngineWindowsAIO, EngineNull, EngineMmap, EnginePosixAIO} {
		for _, v := range variants {
			t.Run(string(engine)+"/"+v.name, func(t *testing.T) {
				if v.batch && engine != EngineIOUring && engine != EngineLibaio {
					clydetest.Skipf(t, "%s does not batch", engine)
				}
				e, _ := engineByName(engine)
				if err := e.available(); err != nil {
					clydetest.Skipf(t, "%s not available here: %v", engine, err)
				}
				path := filepath.Join(testDir(t), "f")
				if err := os.WriteFile(path, make([]byte, 1<<20), 0o644); err != nil {
					t.Fatal(err)
				}
				h, err := osio.OpenFile(path, osio.ReadWrite|engineOpenFlags(e))
				if err != nil {
					t.Fatal(err)
				}
				wl := &workload{Workload: Workload{RW: RandRW, RWMixRead: 50, BS: 4096, Size: 1 << 20, IODepth: 16, NumJobs: 1,
					IOEngine: engine, Buffer: v.buf, Seed: 1, Runtime: time.Minute}, engine: e, depth: 16}
				if v.batch {
					wl.SubmitBatch, wl.ReapMin, wl.LowWater, wl.IODepthBatchCompleteMax = 8, 3, 12, 6
				}
				w := newWorker(wl, 0)
				w.h, w.ctx = h, context.Background()
				defer w.close()
				rec := &countingRecorder{every: v.every}
				if v.perIO || v.every > 0 {
					w.record(rec, v.perIO)
				}
				w.ioLimit, w.remaining = v.ios, v.ios
				allocs := runCountingAllocs(t, e, w)
				if n := w.ios[0] + w.ios[1]; n != v.ios {
					t.Fatalf("%d I/Os, want %d", n, v.ios)
				}
				if v.perIO && rec.ios != v.ios {
					t.Fatalf("the record saw %d I/Os of %d", rec.ios, v.ios)
				}
				if v.every > 0 && rec.windows == 0 {
					t.Fatal("the record saw no window")
				}
				// Setup (a buffer per slot, a goroutine) and the marks may
				// allocate; one allocation per I/O may not.
				if allocs > 100 {
					t.Errorf("%d allocations for %d I/Os", allocs, v.ios)
				}
			})
		}
	}
}

// runCountingAllocs runs w's I/O loop on engine e to its I/O limit and
// returns the allocations made meanwhile; a failed run ends the test. The
// io_uring engine locks its goroutine to its thread for good, so the loop
// runs on a goroutine of its own.
func runCountingAllocs(t *testing.T, e engine, w *worker) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	done := make(chan struct{})
	go func() {
		defer close(done)
		is, err := e.prepare(w)
		if err != nil {
			w.fail(err)
			return
		}
		w.loop = is
		w.base = time.Now()
		is.run(w)
	}()
	<-done
	runtime.ReadMemStats(&after)
	if w.err != nil {
		t.Fatal(w.err)
	}
	return after.Mallocs - before.Mallocs
}

// jobTarget resolves j's plan as RunPlan does and returns its first target
// and workload, unprepared.
func jobTarget(t *testing.T, j Job) (*target, *workload) {
	t.Helper()
	p := j.Plan()
	groups, targets, _, err := resolvePlan(&p)
	if err != nil {
		t.Fatal(err)
	}
	return targets[0], groups[0][0]
}

// TestDepthRecordsWhatRan checks the result's depth is the one that ran:
// psync has no queue, so asked for 8 it runs (and reports) 1 and records 8
// as requested; a queueing engine runs what was asked and records nothing
// extra. The depth distribution agrees.
func TestDepthRecordsWhatRan(t *testing.T) {
	cases := []struct {
		engine         Engine
		ran, requested int
	}{{EnginePsync, 1, 8}}
	if queued, err := queueingEngine(); err == nil {
		cases = append(cases, struct {
			engine         Engine
			ran, requested int
		}{queued, 8, 0})
	}
	for _, tc := range cases {
		t.Run(string(tc.engine), func(t *testing.T) {
			j := countJob(filepath.Join(t.TempDir(), "f"), RandRead, 1<<20, 4096)
			j.IOEngine, j.IODepth, j.Shape = tc.engine, 8, fioShape
			res, err := Run(context.Background(), j)
			if err != nil {
				t.Fatal(err)
			}
			job := res.Jobs[0]
			if c := job.Config; c.IODepth != tc.ran || c.IODepthRequested != tc.requested {
				t.Errorf("config iodepth %d (requested %d), want %d (%d)", c.IODepth, c.IODepthRequested, tc.ran, tc.requested)
			}
			if got := job.Options.Get("iodepth"); got != strconv.Itoa(tc.ran) {
				t.Errorf("job options iodepth %q, want %d: fio's options say what ran", got, tc.ran)
			}
			if tc.ran == 1 {
				if v, _ := job.IODepthLevel.At("1"); v != 100 {
					t.Errorf("iodepth_level %v, want all at 1", job.IODepthLevel)
				}
			}
		})
	}
}
