package fsbench

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/sysinfo"
	"github.com/clydebench/clyde/result"
)

func TestGrid(t *testing.T) {
	tests := []struct {
		v          float64
		up, down   int64
		prevOfDown int64
	}{
		{0, 1, 1, 1},
		{1, 1, 1, 1},
		{2.5, 3, 2, 1},
		{5, 6, 4, 3},
		{853, 1024, 768, 512},
		{2560, 3072, 2048, 1536},
		{460000, 524288, 393216, 262144},
	}
	for _, tc := range tests {
		if got := gridUp(tc.v); got != tc.up {
			t.Errorf("gridUp(%v) = %d, want %d", tc.v, got, tc.up)
		}
		if got := gridDown(tc.v); got != tc.down {
			t.Errorf("gridDown(%v) = %d, want %d", tc.v, got, tc.down)
		}
		if got := gridPrev(tc.down); got != tc.prevOfDown {
			t.Errorf("gridPrev(%d) = %d, want %d", tc.down, got, tc.prevOfDown)
		}
	}
}

// shortRun is a -s 2048 -n 16 run on an SSD: the block and file tests
// fast, stat fastest (the file count it needs sets -n).
func shortRun() (result.FSConfig, result.FSRun) {
	cfg := result.FSConfig{Dir: "/srv", FileSizeMiB: 2048, ChunkBytes: 8192, Seeks: 8192, SeekProcs: 5, ByteIOMiB: 3,
		FilesK: 16, Dirs: 1, FileChunk: 8192, Concurrency: 1, Iterations: 1}
	var run result.FSRun
	set := func(t result.FSTest, rate float64, short bool) {
		run.Tests[t] = result.FSTestResult{Test: t, Ran: true, RatePerSec: rate, TooShort: short, RateUnit: t.RateUnit()}
	}
	set(result.PutChar, 1500, false)
	set(result.PutBlock, 900<<10, false)
	set(result.Rewrite, 1500<<10, false)
	set(result.GetChar, 1500, false)
	set(result.GetBlock, 4000<<10, true)
	set(result.Seeks, 40000, true)
	for _, t := range fileTests {
		set(t, 60000, true)
	}
	set(result.SeqStat, 500000, true)
	set(result.RandStat, 450000, true)
	return cfg, run
}

// TestSuggestWithinInodes is the case: the advice said -n 1024
// (over a million files) where 524,277 inodes were free. It must fit them.
func TestSuggestWithinInodes(t *testing.T) {
	cfg, run := shortRun()
	room := &result.Room{FreeBytes: 200 << 30, FreeInodes: 524277, InodesKnown: true}
	next, limits := Suggest(cfg, run, room)
	o := optionsOf(next)
	if got := o.Needs().Inodes; got > room.FreeInodes {
		t.Fatalf("suggested -n %d needs %d inodes, %d free", next.FilesK, got, room.FreeInodes)
	}
	if next.FilesK <= cfg.FilesK {
		t.Fatalf("-n %d did not grow from %d", next.FilesK, cfg.FilesK)
	}
	joined := strings.Join(limits, "; ")
	if !strings.Contains(joined, "524,277 free inodes") || !strings.Contains(joined, "seq_stat about") {
		t.Fatalf("limits %q do not say the inodes capped -n and which tests stay short", joined)
	}
	// Without the cap, the same rates ask for more files than that.
	free, _ := Suggest(cfg, run, nil)
	if free.FilesK <= next.FilesK {
		t.Fatalf("uncapped -n %d, capped -n %d: the cap did nothing", free.FilesK, next.FilesK)
	}
}

// TestSuggestNeverRefused draws runs, rates and rooms and checks that
// every suggestion passes the options' rules and the preflight's space
// and inode check, and never shrinks a size.
func TestSuggestNeverRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		cfg, run := shortRun()
		cfg.FileSizeMiB = []int64{0, 64, 2048}[rng.IntN(3)]
		cfg.FilesK = []int{0, 1, 16, 128}[rng.IntN(4)]
		if cfg.FileSizeMiB == 0 && cfg.FilesK == 0 {
			cfg.FilesK = 16
		}
		cfg.RAMMiB = []int64{0, 0, 512}[rng.IntN(3)]
		cfg.FileSizeMiB = max(cfg.FileSizeMiB, min(cfg.FileSizeMiB, 1)*2*cfg.RAMMiB)
		cfg.Concurrency = 1 + rng.IntN(3)
		cfg.MaxFileBytes = []int64{0, 4096}[rng.IntN(2)]
		for t := range run.Tests {
			run.Tests[t].RatePerSec *= rng.Float64()*100 + 0.01
			run.Tests[t].TooShort = rng.IntN(2) == 0
			if (result.FSTest(t).IsIO() && cfg.FileSizeMiB == 0) || (!result.FSTest(t).IsIO() && cfg.FilesK == 0) {
				run.Tests[t] = result.FSTestResult{}
			}
		}
		room := &result.Room{FreeBytes: uint64(rng.Int64N(64 << 30)), FreeInodes: uint64(rng.Int64N(2_000_000)), InodesKnown: rng.IntN(4) > 0}
		// The run itself fitted its room.
		ran := optionsOf(cfg)
		need := ran.Needs()
		room.FreeBytes += need.Bytes * 2
		room.FreeInodes += need.Inodes * 2
		next, _ := Suggest(cfg, run, room)
		o := optionsOf(next)
		if err := o.validateResolved(); err != nil {
			t.Fatalf("case %d: suggestion %+v is refused: %v", i, next, err)
		}
		got := o.Needs()
		if got.Bytes > room.FreeBytes || room.InodesKnown && got.Inodes > room.FreeInodes {
			t.Fatalf("case %d: suggestion needs %+v, room %+v", i, got, room)
		}
		if next.FileSizeMiB < cfg.FileSizeMiB || next.FilesK < cfg.FilesK || next.Seeks < cfg.Seeks {
			t.Fatalf("case %d: suggestion %+v shrank %+v", i, next, cfg)
		}
	}
}

// TestPlanFitsBudget: planning from rates puts every test at the target,
// and the estimate of the plan is what a budget is checked against.
func TestPlanFitsBudget(t *testing.T) {
	cfg, run := shortRun()
	o := optionsOf(cfg)
	r := RatesOf(run)
	all := Choose{Size: true, Seeks: true, PerChar: true, Files: true}
	p, limits := plan(o, r, AutoTarget, nil, all, nil)
	if len(limits) != 0 {
		t.Fatalf("limits %v with no room given", limits)
	}
	for tst := result.FSTest(0); tst < result.FSTestCount; tst++ {
		if d := testTime(&p, tst, r[tst]); d < AutoTarget {
			t.Errorf("%s would run %v, under the %v target", tst.Name(), d, AutoTarget)
		}
	}
	// Half the target halves the quickest tests' times, give or take the
	// rounding to the grid.
	half, _ := plan(o, r, AutoTarget/2, nil, all, nil)
	if e1, e2 := estimate(p, r, 0), estimate(half, r, 0); !(e2 < e1) || e2 < e1/4 {
		t.Fatalf("estimate at the target %v, at half %v", e1, e2)
	}
	// Choose keeps what the user gave.
	kept, _ := plan(o, r, AutoTarget, nil, Choose{Files: true}, nil)
	if kept.SizeMiB != o.SizeMiB || kept.Seeks != o.Seeks || kept.ByteIOMiB != o.ByteIOMiB || kept.FilesK == o.FilesK {
		t.Fatalf("Choose{Files} changed %+v to %+v", o.sizes(), kept.sizes())
	}
}

// TestAutoReuse: an earlier --auto run on this host and directory with
// the same other options gives its sizes; another directory, other
// options, a run without --auto or sizes that no longer fit do not.
func TestAutoReuse(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions()
	o.Dir, o.RAMMiB, o.MachineName = dir, 0, "box"
	all := Choose{Size: true, Seeks: true, PerChar: true, Files: true}
	prev := func(edit func(*result.FS)) *result.FS {
		p := o
		p.setSizes(Sizes{SizeMiB: 1024, Seeks: 65536, ByteIOMiB: 4, FilesK: 64})
		f := &result.FS{Config: p.config(), Runs: []result.FSRun{{}}}
		f.Config.Auto = &result.FSAuto{BudgetNs: int64(time.Minute), CalibrationRuns: 2}
		f.Provenance.Hostname = sysinfo.Hostname()
		f.Provenance.StartTime = time.Date(2026, 5, 4, 3, 30, 0, 0, time.UTC)
		if edit != nil {
			edit(f)
		}
		return f
	}
	tests := []struct {
		name string
		prev *result.FS
		ok   bool
	}{
		{"same host, directory and options", prev(nil), true},
		{"another directory", prev(func(f *result.FS) { f.Config.Dir = "/elsewhere" }), false},
		{"another host", prev(func(f *result.FS) { f.Provenance.Hostname = "other" }), false},
		{"other options", prev(func(f *result.FS) { f.Config.Direct = true }), false},
		{"not an --auto run", prev(func(f *result.FS) { f.Config.Auto = nil }), false},
		{"too big for the room now", prev(func(f *result.FS) { f.Config.FileSizeMiB = 1 << 32 }), false},
		{"stopped before it finished", prev(func(f *result.FS) { f.Interrupted = true }), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := AutoReuse(o, 2*time.Minute, all, tc.prev, "#7")
			if ok != tc.ok {
				t.Fatalf("reused %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if c.Sizes != (Sizes{SizeMiB: 1024, Seeks: 65536, ByteIOMiB: 4, FilesK: 64}) || c.Record.ReusedFrom != "#7" ||
				c.Record.CalibrationRuns != 0 || c.Record.BudgetNs != int64(2*time.Minute) {
				t.Fatalf("choice %+v", c)
			}
			next := o
			c.Apply(&next)
			if next.SizeMiB != 1024 || next.Auto == nil || !strings.Contains(c.Summary(next), "the sizes of #7 of 2026-05-04") {
				t.Fatalf("applied %+v, summary %q", next.sizes(), c.Summary(next))
			}
		})
	}
}

// The summary's first line counts calibration runs in English.
func TestAutoSummaryCountsRuns(t *testing.T) {
	o := DefaultOptions()
	for _, tc := range []struct {
		runs int
		want string
	}{{1, " over 1 short run; "}, {3, " over 3 short runs; "}} {
		c := AutoChoice{Sizes: Sizes{SizeMiB: 64, Seeks: 8192, ByteIOMiB: 4, FilesK: 16},
			Record: result.FSAuto{CalibrationRuns: tc.runs, CalibrationNs: 2e9, TargetNs: 1e9, EstimatedNs: 90e9, BudgetNs: 120e9}}
		if s := c.Summary(o); !strings.Contains(s, tc.want) {
			t.Errorf("%d runs: summary %q lacks %q", tc.runs, s, tc.want)
		}
	}
}
