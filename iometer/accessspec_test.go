package iometer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/fiojob"
	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

func TestAccessSpecValidate(t *testing.T) {
	ok := AccessLine{Size: 4096, Weight: 100, ReadPct: 50, RandomPct: 100}
	cases := []struct {
		name   string
		lines  []AccessLine
		direct bool
		want   string // "" accepted
	}{
		{"one line", []AccessLine{ok}, false, ""},
		{"weights sum to 100", []AccessLine{{Size: 512, Weight: 30}, {Size: 4096, Weight: 70}}, false, ""},
		{"no lines", nil, false, "has 0 lines"},
		{"101 lines", make([]AccessLine, 101), false, "has 101 lines"},
		{"weights short of 100", []AccessLine{{Size: 512, Weight: 30}, {Size: 4096, Weight: 60}}, false, "sum to 90"},
		{"zero size", []AccessLine{{Size: 0, Weight: 100}}, false, "line 1: transfer size 0"},
		{"read above 100", []AccessLine{{Size: 512, Weight: 50}, {Size: 512, Weight: 50, ReadPct: 101}}, false, "line 2: % read 101"},
		{"negative random", []AccessLine{{Size: 512, Weight: 100, RandomPct: -1}}, false, "% random -1"},
		{"negative delay", []AccessLine{{Size: 512, Weight: 100, Delay: -time.Millisecond}}, false, "delay"},
		{"reply", []AccessLine{{Size: 512, Weight: 100, Reply: 512}}, false, "reply size"},
		{"direct odd size", []AccessLine{{Size: 1000, Weight: 100}}, true, "multiple of 512"},
		{"direct odd align", []AccessLine{{Size: 4096, Weight: 100, Align: 100}}, true, "alignment 100"},
		{"buffered odd size", []AccessLine{{Size: 1000, Weight: 100, Align: 100}}, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := AccessSpec{Name: "s", Lines: tc.lines}
			err := s.validate(tc.direct)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			case err != nil && !result.IsUsage(err):
				t.Fatalf("%v is not a usage error", err)
			}
		})
	}
}

// drawer is one worker's drawer of spec on a region, and a source to draw
// with, without a target.
func drawer(spec *AccessSpec, off, size int64) (blockbench.Drawer, *blockbench.DrawSource) {
	return spec.NewDrawer(off, size), blockbench.NewDrawSource(3)
}

func TestAccessSequentialContinues(t *testing.T) {
	// Two sequential lines of different sizes: each I/O starts where the
	// previous one ended, whatever line drew it, and the run wraps to the
	// start of the region when a transfer would pass its end.
	spec := &AccessSpec{Name: "seq", Lines: []AccessLine{
		{Size: 4096, Weight: 50, ReadPct: 100}, {Size: 8192, Weight: 50, ReadPct: 0},
	}}
	const off, size = 1 << 20, 64 << 10
	d, src := drawer(spec, off, size)
	prevEnd := int64(off)
	wraps := 0
	for range 1000 {
		_, o, n := d.Next(src)
		if o+int64(n) > off+size || o < off {
			t.Fatalf("I/O %d+%d outside the region", o, n)
		}
		if o != prevEnd {
			if o != off {
				t.Fatalf("offset %d, want %d (after the previous I/O) or %d (wrapped)", o, prevEnd, off)
			}
			wraps++
		}
		prevEnd = o + int64(n)
	}
	if wraps == 0 {
		t.Error("never wrapped to the start of the region")
	}
}

func TestAccessRandomAligned(t *testing.T) {
	spec := &AccessSpec{Name: "rnd", Lines: []AccessLine{{Size: 512, Weight: 100, ReadPct: 50, RandomPct: 100, Align: 4096}}}
	// The region starts off the alignment: the first offset is the next
	// aligned one, the last lets the transfer end inside.
	const off, size = 1000, 1 << 20
	d, src := drawer(spec, off, size)
	seen := map[int64]bool{}
	for range 20_000 {
		_, o, n := d.Next(src)
		if o%4096 != 0 || o < off || o+int64(n) > off+size {
			t.Fatalf("offset %d is not 4096-aligned inside [%d, %d)", o, off, off+size)
		}
		seen[o] = true
	}
	// 256 aligned offsets fit: 4096..1044480.
	if len(seen) != 256 {
		t.Errorf("%d distinct offsets, want all 256", len(seen))
	}
}

func TestAccessBurstKeepsItsLine(t *testing.T) {
	spec := &AccessSpec{Name: "burst", Lines: []AccessLine{
		{Size: 4096, Weight: 50, RandomPct: 100, Burst: 8}, {Size: 8192, Weight: 50, RandomPct: 100, Burst: 8},
	}}
	d, src := drawer(spec, 0, 1<<20)
	for b := range 100 {
		_, _, first := d.Next(src)
		for range 7 {
			if _, _, n := d.Next(src); n != first {
				t.Fatalf("burst %d mixed sizes %d and %d", b, first, n)
			}
		}
	}
}

// An access specification run for real holds each line's share of the
// I/O, and each line its read and random shares, within 2 points over
// 10k I/Os, on every engine.
func TestAccessSpecRunsItsMix(t *testing.T) {
	spec := &AccessSpec{Name: "mix", Lines: []AccessLine{
		{Size: 4096, Weight: 50, ReadPct: 70, RandomPct: 100},
		{Size: 8192, Weight: 30, ReadPct: 0, RandomPct: 0},
		{Size: 512, Weight: 20, ReadPct: 100, RandomPct: 50},
	}}
	for _, engine := range []blockbench.Engine{blockbench.EnginePsync, blockbench.EngineIOUring} {
		t.Run(string(engine), func(t *testing.T) {
			if engine == blockbench.EngineIOUring && blockbench.EngineAvailable(engine) != nil {
				clydetest.Skip(t, "io_uring not available here")
			}
			w := blockbench.Workload{Name: "mix", Filename: filepath.Join(t.TempDir(), "f"), Size: 10_000 * 8192, IODepth: 4, NumJobs: 1,
				IOEngine: engine, Buffer: blockbench.Buffer{Kind: blockbench.BufferRandom}, Seed: 9}
			spec.Apply(&w)
			res, err := blockbench.RunPlan(context.Background(), blockbench.Plan{Groups: []blockbench.Group{{w}}, Shape: fiojob.Shape})
			if err != nil {
				t.Fatal(err)
			}
			job := res.Jobs[0]
			total := job.Read.TotalIOs + job.Write.TotalIOs
			if total != 10_000 {
				t.Fatalf("%d I/Os, want 10000 (one per bs-sized block of the region)", total)
			}
			lines := job.AccessLines
			if len(lines) != 3 {
				t.Fatalf("access_lines %+v, want 3", lines)
			}
			var issued, reads int64
			var wantRead float64
			for i, l := range lines {
				issued += l.IOs
				reads += l.Reads
				wantRead += float64(spec.Lines[i].Weight*spec.Lines[i].ReadPct) / 100
				withinShare(t, "line share", i, pct(l.IOs, total), float64(spec.Lines[i].Weight))
				// A line's own shares come from its few thousand I/Os:
				// within 3.5 standard deviations of a binomial draw.
				near(t, "read share", i, l.Reads, l.IOs, spec.Lines[i].ReadPct)
				near(t, "random share", i, l.Random, l.IOs, spec.Lines[i].RandomPct)
			}
			withinShare(t, "the spec's read share", -1, pct(job.Read.TotalIOs, total), wantRead)
			if issued != total || reads != job.Read.TotalIOs {
				t.Errorf("lines count %d I/Os (%d reads), the job %d (%d reads)", issued, reads, total, job.Read.TotalIOs)
			}
			var wantBytes int64
			for _, l := range lines {
				wantBytes += l.IOs * l.SizeBytes
			}
			if got := job.Read.IOBytes + job.Write.IOBytes; got != wantBytes {
				t.Errorf("io_bytes %d, want the lines' %d", got, wantBytes)
			}
			if job.Options.Get("access_spec") != "mix" || job.Config.RW != "randrw" || job.Config.BSBytes != 8192 {
				t.Errorf("options %v config %+v do not describe the spec", job.Options, job.Config)
			}
		})
	}
}

func near(t *testing.T, what string, line int, n, of int64, wantPct int) {
	t.Helper()
	p := float64(wantPct) / 100
	tol := max(0.5, 3.5*math.Sqrt(p*(1-p)/float64(of))*100)
	if got := pct(n, of); math.Abs(got-float64(wantPct)) > tol {
		t.Errorf("line %d %s %.2f%% of %d I/Os, want %d%% within %.1f points", line+1, what, got, of, wantPct, tol)
	}
}

func withinShare(t *testing.T, what string, line int, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 2 {
		where := "the spec"
		if line >= 0 {
			where = fmt.Sprintf("line %d", line+1)
		}
		t.Errorf("%s: %s %.2f%%, want %.1f%% within 2 points", where, what, got, want)
	}
}

func TestAccessSpecRefusedBeforeCreating(t *testing.T) {
	dir := t.TempDir()
	spec := &AccessSpec{Name: "big", Lines: []AccessLine{{Size: 1 << 20, Weight: 100, Align: 1 << 20}}}
	w := blockbench.Workload{Name: "big", Filename: filepath.Join(dir, "f"), Size: 1<<20 + 4096, Offset: 4096, IODepth: 1, NumJobs: 1,
		IOEngine: blockbench.EnginePsync, Runtime: time.Second, TimeBased: true, Buffer: blockbench.Buffer{Kind: blockbench.BufferRandom}}
	spec.Apply(&w)
	_, err := blockbench.RunPlan(context.Background(), blockbench.Plan{Groups: []blockbench.Group{{w}}})
	var ue *result.UsageError
	if !errors.As(err, &ue) || !strings.Contains(ue.Msg, "does not fit") {
		t.Fatalf("err = %v, want a usage error saying the aligned transfer does not fit", err)
	}
	mustBeEmpty(t, dir)

	// rw and bs that do not come from the spec: refused.
	w.Access = &AccessSpec{Name: "other", Lines: []AccessLine{{Size: 512, Weight: 100}}}
	if _, err := blockbench.RunPlan(context.Background(), blockbench.Plan{Groups: []blockbench.Group{{w}}}); !result.IsUsage(err) {
		t.Fatalf("a workload whose rw/bs do not describe its spec: err = %v, want a usage error", err)
	}
	mustBeEmpty(t, dir)
}

func mustBeEmpty(t *testing.T, dir string) {
	t.Helper()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("something was created: %v", entries)
	}
}

// BenchmarkDraw is the cost of drawing one I/O from a one-line access
// specification and from the three-line one of TestAccessSpecRunsItsMix
// (blockbench's BenchmarkDraw draws fio's randread of the same shape). A
// draw costs nanoseconds next to the microseconds of the I/O it draws.
func BenchmarkDraw(b *testing.B) {
	oneLine := &AccessSpec{Name: "4k", Lines: []AccessLine{{Size: 4096, Weight: 100, ReadPct: 100, RandomPct: 100}}}
	mixed := &AccessSpec{Name: "mix", Lines: []AccessLine{{Size: 4096, Weight: 50, ReadPct: 70, RandomPct: 100},
		{Size: 8192, Weight: 30}, {Size: 512, Weight: 20, ReadPct: 100, RandomPct: 50}}}
	for _, tc := range []struct {
		name string
		spec *AccessSpec
	}{{"access-one-line", oneLine}, {"access-three-lines", mixed}} {
		b.Run(tc.name, func(b *testing.B) {
			d, src := drawer(tc.spec, 0, 1<<30)
			b.ReportAllocs()
			for b.Loop() {
				d.Next(src)
			}
		})
	}
}

// TestDrawDoesNotAllocate draws from a specification with a sequential
// line, a burst and two sizes: every branch of the draw runs, and none
// allocates (blockbench's TestPatternLoopDoesNotAllocate holds the loop
// around it to the same).
func TestDrawDoesNotAllocate(t *testing.T) {
	spec := &AccessSpec{Name: "mixed", Lines: []AccessLine{
		{Size: 4096, Weight: 60, ReadPct: 70, RandomPct: 100},
		{Size: 65536, Weight: 30, ReadPct: 0, RandomPct: 0, Burst: 4},
		{Size: 512, Weight: 10, ReadPct: 100, RandomPct: 50, Align: 4096},
	}}
	d, src := drawer(spec, 0, 1<<20)
	if n := testing.AllocsPerRun(20_000, func() { d.Next(src) }); n != 0 {
		t.Errorf("%.2f allocations per draw", n)
	}
}
