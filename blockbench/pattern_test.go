package blockbench

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// sizesPattern is a workload's own pattern for the hook's tests: each I/O
// a random one of sizes, at a random size-aligned offset, a write with
// writePct percent; each drawer counts its I/Os per size, and Summarize
// puts the counts in the job's access lines.
type sizesPattern struct {
	sizes    []int
	writePct uint64
	refuse   error
}

func (p *sizesPattern) Check(*Workload) error           { return p.refuse }
func (p *sizesPattern) CheckRegion(_, size int64) error { return nil }

func (p *sizesPattern) NewDrawer(offset, size int64) Drawer {
	return &sizesDrawer{p: p, off: offset, size: size, counts: make([]int64, len(p.sizes))}
}

func (p *sizesPattern) Summarize(job *result.BlockJob, drawers []Drawer) {
	for i, n := range p.sizes {
		line := result.BlockAccessLine{SizeBytes: int64(n)}
		for _, d := range drawers {
			line.IOs += d.(*sizesDrawer).counts[i]
		}
		job.AccessLines = append(job.AccessLines, line)
	}
}

type sizesDrawer struct {
	p         *sizesPattern
	off, size int64
	counts    []int64
}

func (d *sizesDrawer) Next(src *DrawSource) (bool, int64, int) {
	i := src.Below(uint64(len(d.p.sizes)))
	n := d.p.sizes[i]
	d.counts[i]++
	off := d.off + int64(src.Below(uint64(d.size/int64(n))))*int64(n)
	return src.Below(100) < d.p.writePct, off, n
}

func (d *sizesDrawer) MaxSize() int {
	return max(d.p.sizes[0], d.p.sizes[len(d.p.sizes)-1])
}

func (d *sizesDrawer) Reset() { clear(d.counts) }

// TestPatternLoopDoesNotAllocate runs a workload's own pattern in the I/O
// loop: the hook around its draw allocates nothing per I/O.
func TestPatternLoopDoesNotAllocate(t *testing.T) {
	for _, engine := range []Engine{EnginePsync, EngineIOUring} {
		t.Run(string(engine), func(t *testing.T) {
			if e, _ := engineByName(engine); e.available() != nil {
				clydetest.Skipf(t, "%s not available here", engine)
			}
			loopAllocs(t, engine, &sizesPattern{sizes: []int{4096, 65536}, writePct: 30})
		})
	}
}

func loopAllocs(t *testing.T, engine Engine, p Pattern) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := osio.OpenFile(path, osio.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := engineByName(engine)
	wl := &workload{Workload: Workload{RW: RandRW, RWMixRead: 50, BS: 65536, Size: 1 << 20, IODepth: 16, NumJobs: 1,
		IOEngine: engine, Buffer: Buffer{Kind: BufferRandom}, Seed: 1, Access: p}, engine: e, depth: 16}
	w := newWorker(wl, 0)
	w.h, w.ctx = h, context.Background()
	defer w.close()
	w.ioLimit, w.remaining = 20_000, 20_000
	allocs := runCountingAllocs(t, e, w)
	if n := w.ios[0] + w.ios[1]; n != 20_000 {
		t.Fatalf("%d I/Os, want 20000", n)
	}
	// Setup (a buffer per slot, a goroutine) and a per-second mark
	// may allocate; one allocation per I/O may not.
	if allocs > 100 {
		t.Errorf("%d allocations for 20000 I/Os", allocs)
	}
}

// TestPatternHook runs a workload's own pattern for real, one pass of 256
// I/Os per worker after a ramp: its I/O is what the drawers drew, and what
// they counted after the ramp is what Summarize gets.
func TestPatternHook(t *testing.T) {
	p := &sizesPattern{sizes: []int{4096, 16384}, writePct: 50}
	w := Workload{Name: "own", Filename: filepath.Join(t.TempDir(), "f"), RW: RandRW, BS: 16384, Size: 4 << 20, IODepth: 2,
		NumJobs: 2, IOEngine: EnginePsync, RampTime: 50 * time.Millisecond,
		Buffer: Buffer{Kind: BufferRandom}, Seed: 5, Access: p}
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
	if err != nil {
		t.Fatal(err)
	}
	job := res.Jobs[0]
	if len(job.AccessLines) != 2 {
		t.Fatalf("access lines %+v, want one per size", job.AccessLines)
	}
	var ios, bytes int64
	for _, l := range job.AccessLines {
		ios += l.IOs
		bytes += l.IOs * l.SizeBytes
	}
	if total := job.Read.TotalIOs + job.Write.TotalIOs; ios != total || total != 2*256 {
		t.Errorf("the drawers counted %d I/Os after the ramp, the job %d", ios, total)
	}
	if got := job.Read.IOBytes + job.Write.IOBytes; got != bytes {
		t.Errorf("io_bytes %d, want the drawn sizes' %d", got, bytes)
	}
	if job.Read.TotalIOs == 0 || job.Write.TotalIOs == 0 {
		t.Errorf("reads %d, writes %d: want both drawn", job.Read.TotalIOs, job.Write.TotalIOs)
	}
}

// A pattern that refuses its workload refuses the plan before anything
// is created.
func TestPatternCheckRefuses(t *testing.T) {
	dir := t.TempDir()
	p := &sizesPattern{sizes: []int{4096}, refuse: result.Usagef("--access", "no")}
	w := Workload{Name: "own", Filename: filepath.Join(dir, "f"), RW: RandRW, BS: 4096, Size: 1 << 20, IODepth: 1, NumJobs: 1,
		IOEngine: EnginePsync, Runtime: time.Second, TimeBased: true, Buffer: Buffer{Kind: BufferRandom}, Access: p}
	if _, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}}); !isUsageFor(err, "--access") {
		t.Fatalf("err = %v, want the pattern's refusal", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("something was created: %v", entries)
	}
}

// BenchmarkDraw is the cost of drawing one I/O: fio's randread, and a
// workload's own pattern of the same shape through the hook (package
// iometer's BenchmarkDraw draws its access specifications).
func BenchmarkDraw(b *testing.B) {
	for _, tc := range []struct {
		name string
		own  Pattern
	}{{"fio-randread", nil}, {"own-pattern", &sizesPattern{sizes: []int{4096}}}} {
		b.Run(tc.name, func(b *testing.B) {
			wl := &workload{Workload: Workload{RW: RandRead, BS: 4096, Size: 1 << 30, IODepth: 1, NumJobs: 1, Seed: 3, Access: tc.own},
				engine: mustEngine(EnginePsync), depth: 1}
			w := newWorker(wl, 0)
			b.ReportAllocs()
			for b.Loop() {
				w.pattern.next(w)
			}
		})
	}
}
