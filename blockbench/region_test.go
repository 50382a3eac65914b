package blockbench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/result"
)

// TestPlace places regions as fio 3.33 placed them on a 1 MiB file at
// bs=4k (each figure is the first and last offset of fio's latency log,
// log_offset=1, for the same options).
func TestPlace(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name    string
		w       Workload
		off, sz int64
		before  int64
	}{
		{"size=30%", Workload{Region: RegionSpec{SizePercent: 30}}, 0, 311296, mib},
		{"size=30% offset=900k: the rest", Workload{Offset: 900 << 10, Region: RegionSpec{SizePercent: 30}}, 900 << 10, 126976, mib},
		{"offset=10%, rounded up to a block", Workload{Size: 64 << 10, Region: RegionSpec{OffsetPercent: 10}}, 106496, 64 << 10, mib},
		{"offset_increment=10%, subjob 2", Workload{Size: 16 << 10, Offset: 4096, Region: RegionSpec{IncrementPercent: 10, Increments: 2}}, 217088, 16 << 10, mib},
		{"offset_increment=10%, subjob 1", Workload{Size: 16 << 10, Offset: 4096, Region: RegionSpec{IncrementPercent: 10, Increments: 1}}, 110592, 16 << 10, mib},
		{"offset_increment=100k, not rounded", Workload{Size: 8 << 10, Offset: 1, Region: RegionSpec{Increment: 100 << 10, Increments: 2}}, 204801, 8 << 10, mib},
		{"a share of a new file is of nothing", Workload{Size: 64 << 10, Region: RegionSpec{OffsetPercent: 50, IncrementPercent: 10, Increments: 3}}, 0, 64 << 10, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.w.BS = 4096
			off, sz := c.w.place(c.before)
			if off != c.off || sz != c.sz {
				t.Errorf("offset %d size %d, fio's %d and %d", off, sz, c.off, c.sz)
			}
		})
	}
}

// TestIOSizeLimit counts io_size's I/Os as fio 3.33 did them (fio's
// total_ios for the same options, 4 KiB blocks, a 64 KiB region of 16).
func TestIOSizeLimit(t *testing.T) {
	const k = 1024
	for _, c := range []struct {
		name   string
		ioSize int64
		loops  int
		want   int64
	}{
		{"more than the region: passes on to io_size", 160 * k, 1, 40},
		{"less: the pass stops early", 40 * k, 1, 10},
		{"not whole blocks: one I/O over", 162 * k, 1, 41},
		{"loops=2: whole passes while they last", 96 * k, 2, 32},
		{"loops=2, io_size over two passes: a fourth pass", 200 * k, 2, 64},
		{"loops=3, below a pass: capped at io_size times loops", 40 * k, 3, 30},
	} {
		if got := ioSizeLimit(c.ioSize, 4*k, 16, c.loops); got != c.want {
			t.Errorf("%s: %d I/Os, fio did %d", c.name, got, c.want)
		}
	}
	// io_size=50% of a 256k region with loops=2: fio did 64 I/Os.
	if got := ioSizeLimit(RegionSpec{IOSizePercent: 50}.ioBytes(256*k), 4*k, 64, 2); got != 64 {
		t.Errorf("io_size=50%% loops=2: %d I/Os, fio did 64", got)
	}
	if got := ioSizeLimit(1<<62, 4*k, 1<<40, 1<<20); got <= 0 {
		t.Errorf("a huge io_size overflowed to %d", got)
	}
}

// withDefaults fills what every workload of these tests leaves at
// clyde's defaults.
func withDefaults(w Workload) Workload {
	w.Buffer = Buffer{Kind: BufferRandom}
	if w.Name == "" {
		w.Name = "r"
	}
	w.BS, w.IODepth, w.Seed = 4096, 1, DefaultSeed
	if w.NumJobs == 0 {
		w.NumJobs = 1
	}
	if w.IOEngine == "" {
		w.IOEngine = EnginePsync
	}
	return w
}

// TestRegionRuns runs the region options for real: the I/O counts and
// bytes fio's options give.
func TestRegionRuns(t *testing.T) {
	dir := testDir(t)
	existing := filepath.Join(dir, "existing")
	if err := os.WriteFile(existing, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		w     Workload
		reads int64
	}{
		{"io_size over two and a half passes", Workload{Filename: filepath.Join(dir, "new1"), RW: RandRead, Size: 64 << 10,
			Region: RegionSpec{IOSize: 160 << 10}}, 40},
		{"size=30% offset=900k", Workload{Filename: existing, RW: Read, Offset: 900 << 10, Region: RegionSpec{SizePercent: 30}}, 31},
		{"io_size=50%, loops=2", Workload{Filename: existing, RW: Read, Size: 256 << 10, Loops: 2, Region: RegionSpec{IOSizePercent: 50}}, 64},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := withDefaults(c.w)
			w.RandomMap = true
			res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, SizeGiven: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Jobs[0].Read.TotalIOs; got != c.reads {
				t.Errorf("%d reads, want fio's %d", got, c.reads)
			}
		})
	}
}

// TestRegionRefusals: what fio cannot place, or clyde does not run.
func TestRegionRefusals(t *testing.T) {
	dir := testDir(t)
	for _, c := range []struct {
		name string
		w    Workload
		want string
	}{
		{"a share of a new file", Workload{RW: Read, Region: RegionSpec{SizePercent: 50}}, "no job before it lays out"},
		{"io_size with trims", Workload{RW: Trim, Size: 1 << 20, Region: RegionSpec{IOSize: 1 << 20}}, "not trims"},
		{"io_size with verify", Workload{RW: Write, Size: 1 << 20, Verify: VerifyMD5, Region: RegionSpec{IOSize: 1 << 20}}, "one pass"},
		{"a share over 100%", Workload{RW: Read, Size: 1 << 20, Region: RegionSpec{OffsetPercent: 101}}, "outside 1..100"},
		{"an increment across several workers", Workload{RW: Read, Size: 1 << 20, NumJobs: 2, Region: RegionSpec{Increment: 4096, Increments: 1}}, "workload of its own"},
		{"a share of what null has not", Workload{RW: Read, Size: 1 << 20, IOEngine: EngineNull, Region: RegionSpec{OffsetPercent: 5}}, "no file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := withDefaults(c.w)
			w.Filename = filepath.Join(dir, "new")
			_, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, SizeGiven: true})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want a refusal saying %q", err, c.want)
			}
		})
	}
}

// TestStartDelay: a workload with a start delay starts no sooner than it
// (a timer never fires early) and still does all its I/O; its runtime
// counts from its start.
func TestStartDelay(t *testing.T) {
	const delay = 300 * time.Millisecond
	base := withDefaults(Workload{Size: 64 << 10, IOEngine: EngineNull, RW: Read})
	now, late := base, base
	now.Name, late.Name, late.StartDelay = "now", "late", delay
	start := time.Now()
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{now, late}}})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < delay {
		t.Errorf("the plan took %v, less than the delay %v", took, delay)
	}
	for _, j := range res.Jobs {
		if j.Read.TotalIOs != 16 {
			t.Errorf("%s: %d reads, want 16", j.JobName, j.Read.TotalIOs)
		}
		if j.ElapsedNs >= int64(delay) {
			t.Errorf("%s: runtime %v counts the delay", j.JobName, time.Duration(j.ElapsedNs))
		}
	}
}

// TestStartDelayInterrupted: ^C during a delay ends the worker at once.
func TestStartDelayInterrupted(t *testing.T) {
	w := withDefaults(Workload{Name: "late", Size: 64 << 10, IOEngine: EngineNull, RW: Read, StartDelay: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	res, err := RunPlan(ctx, Plan{Groups: []Group{{w}}})
	if err == nil || res == nil || !res.Interrupted {
		t.Fatalf("got %v, want the run interrupted in its delay", err)
	}
}

// TestMinRate: a worker held below rate_iops_min fails once fio's
// settling time and a rate cycle have passed, with fio's error.
func TestMinRate(t *testing.T) {
	w := withDefaults(Workload{Name: "slow", Size: 64 << 10, IOEngine: EngineNull, RW: RandRead,
		TimeBased: true, Runtime: 10 * time.Second, RateIOPS: [2]int64{20, 20}, RateIOPSMin: [2]int64{1000, 1000}, RateCycle: 200 * time.Millisecond})
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
	var mr *MinRateError
	if !errors.As(err, &mr) || !mr.IOPS || mr.Want != 1000 || mr.Got >= 1000 {
		t.Fatalf("got %v, want rate_iops_min=1000 not met", err)
	}
	if res == nil || len(res.Jobs) != 1 || res.Jobs[0].Error != errEIO {
		t.Fatalf("job error %+v, want fio's EIO", res)
	}
	if d := time.Duration(res.Jobs[0].ElapsedNs); d >= 10*time.Second || d < time.Duration(minRateSettle) {
		t.Errorf("ran %v: the check ends it after the settling time, before the runtime", d)
	}
}

// TestCreateOnOpen: a file made for writes alone is not laid out first;
// one a job reads is refused.
func TestCreateOnOpen(t *testing.T) {
	dir := testDir(t)
	w := withDefaults(Workload{Name: "w", Filename: filepath.Join(dir, "new"), Size: 64 << 10, RW: Write, CreateOnOpen: true})
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, SizeGiven: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Target.FillNs != 0 || res.Jobs[0].Write.TotalIOs != 16 {
		t.Errorf("fill %v ns, %d writes: want no fill, 16 writes", res.Target.FillNs, res.Jobs[0].Write.TotalIOs)
	}
	w.RW = RandRW
	if _, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, SizeGiven: true}); err == nil || !strings.Contains(err.Error(), "create_on_open") {
		t.Errorf("got %v, want a refusal of a read of a file never laid out", err)
	}
}

// TestUnified: unified_rw_reporting sums a job's directions into "mixed",
// its latencies merged: every I/O counted once.
func TestUnified(t *testing.T) {
	for _, mode := range []Unified{UnifiedMixed, UnifiedBoth} {
		w := withDefaults(Workload{Size: 256 << 10, IOEngine: EngineNull, RW: RandRW, RWMixRead: 50})
		w.Report.Unified = mode
		res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
		if err != nil {
			t.Fatal(err)
		}
		j := res.Jobs[0]
		m := j.Mixed
		if m == nil || j.MixedOnly != (mode == UnifiedMixed) {
			t.Fatalf("mode %d: mixed %v, only %v", mode, m, j.MixedOnly)
		}
		if m.TotalIOs != 64 || m.TotalIOs != j.Read.TotalIOs+j.Write.TotalIOs || m.IOBytes != 64*4096 || m.Lat.N != 64 || m.Clat.N != 64 {
			t.Errorf("mode %d: mixed %d I/Os, %d bytes, lat N %d, clat N %d; read %d write %d", mode, m.TotalIOs, m.IOBytes, m.Lat.N, m.Clat.N, j.Read.TotalIOs, j.Write.TotalIOs)
		}
		if m.RuntimeNs != max(j.Read.RuntimeNs, j.Write.RuntimeNs) || m.IOPS <= 0 {
			t.Errorf("mode %d: runtime %d, read %d, write %d", mode, m.RuntimeNs, j.Read.RuntimeNs, j.Write.RuntimeNs)
		}
	}
}

// TestCheckPlan: a plan RunPlan would refuse is refused with the same
// usage error, and a runnable one makes nothing.
func TestCheckPlan(t *testing.T) {
	dir := testDir(t)
	w := withDefaults(Workload{Filename: filepath.Join(dir, "new"), RW: Write, Size: 1 << 20})
	if err := CheckPlan(Plan{Groups: []Group{{w}}, SizeGiven: true}); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("CheckPlan made %d files", len(ents))
	}
	w.Verify, w.SeqGap = VerifyMD5, 8192
	if err := CheckPlan(Plan{Groups: []Group{{w}}, SizeGiven: true}); err == nil || !result.IsUsage(err) {
		t.Errorf("got %v, want the refusal of verify with holes", err)
	}
	w = withDefaults(Workload{Filename: filepath.Join(dir, "huge"), RW: Write, Size: 1 << 62})
	if err := CheckPlan(Plan{Groups: []Group{{w}}, SizeGiven: true}); err == nil {
		t.Error("a file larger than the filesystem passed")
	}
}

// TestDelayStart: a start delay moves the worker's ramp, runtime and
// measurement to its start.
func TestDelayStart(t *testing.T) {
	const at = int64(500 * time.Millisecond)
	w := withDefaults(Workload{Size: 64 << 10, IOEngine: EngineNull, RW: Read, TimeBased: true, Runtime: time.Second})
	wk := newWorker(&workload{Workload: w, depth: 1, engine: mustEngine(EngineNull)}, 0)
	wk.delayStart(at)
	if wk.startNs != at || wk.deadline != at+int64(time.Second) || wk.marks[0].atNs != at {
		t.Errorf("start %d, deadline %d, first mark %d; want the measurement from %d", wk.startNs, wk.deadline, wk.marks[0].atNs, at)
	}
	w.RampTime = 100 * time.Millisecond
	wk = newWorker(&workload{Workload: w, depth: 1, engine: mustEngine(EngineNull)}, 0)
	wk.delayStart(at)
	if wk.measuring || wk.rampEnd != at+int64(w.RampTime) || wk.deadline != wk.rampEnd+int64(time.Second) {
		t.Errorf("ramp ends %d, deadline %d", wk.rampEnd, wk.deadline)
	}
}
