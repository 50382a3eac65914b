package blockbench

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/limits"
	"github.com/clydebench/clyde/result"
)

// withRAM makes the process's limits ram bytes of memory and nothing else
// until the test ends.
func withRAM(t *testing.T, ram uint64) {
	old := limits.Read
	limits.Read = func() (limits.Limits, error) { return limits.Limits{Memory: ram}, nil }
	t.Cleanup(func() { limits.Read = old })
}

// TestValidateRefusesBadInput: each rule is a usage error naming its flag,
// with the numbers it judged.
func TestValidateRefusesBadInput(t *testing.T) {
	withRAM(t, 1<<30) // buffers may take 512 MiB
	cases := []struct {
		name string
		edit func(j *Job)
		flag string
		says string
	}{
		{"runtime of a nanosecond", func(j *Job) { j.Runtime = time.Nanosecond }, "--runtime", "1ns is shorter than 1ms"},
		{"runtime just under the minimum", func(j *Job) { j.Runtime = MinRuntime - 1 }, "--runtime", "shorter than 1ms"},
		{"iodepth past io_uring's", func(j *Job) { j.IODepth, j.IOEngine = 100000, EngineIOUring }, "--iodepth", "100000 is above 32768"},
		{"iodepth past io_uring's on psync", func(j *Job) { j.IODepth = MaxIODepth + 1 }, "--iodepth", "above 32768"},
		{"offset + size overflows", func(j *Job) { j.Offset, j.Size = math.MaxInt64-10, 1<<20 }, "--size", "past the largest file offset"},
		{"bs past a buffer", func(j *Job) { j.BlockSizes = []int64{math.MaxInt64} }, "--bs", "larger than one buffer"},
		{"one buffer past half the memory", func(j *Job) { j.BlockSizes, j.Size = []int64{1 << 30}, 2<<30 }, "--bs", "more than half of the 1.0 GiB"},
		{"a queue past half the memory", func(j *Job) { j.BlockSizes, j.IODepth, j.IOEngine = []int64{64 << 20}, 16, EngineIOUring }, "--iodepth",
			"(bs 64 MiB x 16 buffers and 7 histograms of 264 KiB per worker x 1 workers"},
		{"workers past half the memory", func(j *Job) { j.BlockSizes, j.NumJobs = []int64{64 << 20}, 8 }, "--numjobs",
			"x 2 buffers and 7 histograms of 264 KiB per worker x 8 workers"},
		{"a percentile twice", func(j *Job) { j.Report.PercentileList = []float64{99, 99.9, 99} }, "--percentile_list", "99 is listed twice"},
		{"auto counts io_uring's buffers", func(j *Job) { j.BlockSizes, j.IODepth, j.IOEngine = []int64{64 << 20}, 16, EngineAuto }, "--iodepth", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := NewJob(filepath.Join(t.TempDir(), "f"))
			tc.edit(&j)
			err := j.Validate()
			var ue *result.UsageError
			if !errors.As(err, &ue) || ue.Flag != tc.flag || !strings.Contains(ue.Msg, tc.says) {
				t.Fatalf("err = %v, want a usage error for %s saying %q", err, tc.flag, tc.says)
			}
		})
	}
	t.Run("the limits themselves pass", func(t *testing.T) {
		j := NewJob("f")
		j.Runtime, j.IODepth, j.IOEngine, j.BlockSizes = MinRuntime, MaxIODepth, EngineIOUring, []int64{4096}
		if err := j.Validate(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestPlanFootprintRefusedBeforeCreating: a plan's workloads (a preset's
// rows) are checked once planned, before the file is made.
func TestPlanFootprintRefusedBeforeCreating(t *testing.T) {
	withRAM(t, 8<<20) // 4 MiB for buffers: SEQ1M Q8T1 needs 9 MiB
	dir := t.TempDir()
	w := Workload{Name: "SEQ1M Q8T1 read", Filename: filepath.Join(dir, "f"), RW: Read, BS: 1 << 20, Size: 4 << 20, IODepth: 8,
		NumJobs: 1, IOEngine: EngineIOUring, Direct: true, Runtime: DefaultRuntime, TimeBased: true, Buffer: Buffer{Kind: BufferRandom}}
	_, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, SizeGiven: true})
	var ue *result.UsageError
	if !errors.As(err, &ue) || ue.Flag != "--iodepth" {
		t.Fatalf("err = %v, want a usage error for --iodepth", err)
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("created %v", names)
	}
}

// TestSizeZeroForNewFile: --size 0 on a path that does not exist yet is
// refused; no --size gives the documented default.
func TestSizeZeroForNewFile(t *testing.T) {
	dir := t.TempDir()
	j := countJob(filepath.Join(dir, "f"), Write, 0, 4096)
	j.SizeGiven = true
	_, err := Run(context.Background(), j)
	var ue *result.UsageError
	if !errors.As(err, &ue) || ue.Flag != "--size" || !strings.Contains(ue.Msg, "does not exist yet") {
		t.Fatalf("err = %v, want a --size refusal", err)
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("created %v", names)
	}
	j.SizeGiven = false
	if _, wl := jobTarget(t, j); wl.Size != DefaultSize {
		t.Errorf("no --size: region of %d bytes; want %d", wl.Size, DefaultSize)
	}
}

// TestJobWithoutIOFails: a job that completed no I/O is an error, not a
// row of zeros.
func TestJobWithoutIOFails(t *testing.T) {
	dir := t.TempDir()
	j := countJob(filepath.Join(dir, "f"), Read, 1<<20, 4096)
	tg, wl := jobTarget(t, j)
	if err := tg.prepare(context.Background(), false, j.Buffer, 1); err != nil {
		t.Fatal(err)
	}
	defer tg.Cleanup()
	// Past Validate: a deadline that has passed before the first I/O.
	wl.Runtime, wl.TimeBased = time.Nanosecond, true
	var res result.Block
	err := runGroups(context.Background(), [][]*workload{{wl}}, &res)
	if err == nil || !strings.Contains(err.Error(), "completed no I/O") {
		t.Fatalf("err = %v, want one saying the job completed no I/O", err)
	}
	if len(res.Jobs) != 0 || res.Error == "" {
		t.Errorf("jobs %d error %q: want no job and the error recorded", len(res.Jobs), res.Error)
	}
}

func TestBufferFootprintSaturates(t *testing.T) {
	cases := []struct {
		name           string
		bs             int64
		depth, numJobs int
		engine         Engine
		want           uint64
	}{
		{"psync: a read and a write buffer", 4096, 32, 1, EnginePsync, 2*(4096+BufferAlign) + fillChunk},
		{"io_uring: one per slot", 4096, 32, 2, EngineIOUring, 64*(4096+BufferAlign) + fillChunk},
		{"auto: at least psync's two", 4096, 1, 1, EngineAuto, 2*(4096+BufferAlign) + fillChunk},
		{"workers times slots overflows", 4096, MaxIODepth, math.MaxInt, EngineIOUring, math.MaxUint64},
		{"bytes overflow", math.MaxInt64 / 2, 8, 1, EngineIOUring, math.MaxUint64},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := workerFootprint(tc.bs, tc.depth, tc.numJobs, tc.engine).BufferMemory(); got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
}

// TestMarkCapacityBounded: the marks allocated before a run stay an hour's
// worth however long the run (issue 20 case 10: --runtime 100000h).
func TestMarkCapacityBounded(t *testing.T) {
	tests := []struct {
		name string
		d    time.Duration
		want int
	}{
		{"10 s", 10 * time.Second, 23},
		{"an hour", time.Hour, 7203},
		{"100000h", 100000 * time.Hour, 7203},
		{"zero", 0, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := markCapacity(tc.d); got != tc.want {
				t.Fatalf("markCapacity(%v) = %d, want %d", tc.d, got, tc.want)
			}
		})
	}
}
