package limits

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

// TestWorkersMemory: every worker's buffers with their slack, the fill
// buffer and the histograms add up, and a sum past 64 bits saturates
// rather than wrapping to a small number that would pass the check.
func TestWorkersMemory(t *testing.T) {
	w := Workers{Count: 3, BufferSize: 4096, Align: 4096, Buffers: 2, Histograms: 7, HistogramSize: 1000, FillBuffer: 1 << 20}
	cases := []struct {
		name         string
		w            Workers
		buffers, all uint64
	}{
		{"three workers", w, 3*2*8192 + 1<<20, 3*2*8192 + 1<<20 + 3*7*1000},
		{"workers times buffers overflow", Workers{Count: math.MaxInt, BufferSize: 4096, Align: 4096, Buffers: 1 << 40}, math.MaxUint64, math.MaxUint64},
		{"bytes overflow", Workers{Count: 1, BufferSize: math.MaxInt64, Align: 4096, Buffers: 8}, math.MaxUint64, math.MaxUint64},
		{"histograms overflow", Workers{Count: math.MaxInt, Histograms: 7, HistogramSize: 1 << 40}, 0, math.MaxUint64},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.w.BufferMemory(); got != tc.buffers {
				t.Errorf("BufferMemory = %d, want %d", got, tc.buffers)
			}
			if got := tc.w.Memory(); got != tc.all {
				t.Errorf("Memory = %d, want %d", got, tc.all)
			}
		})
	}
}

// TestWorkersCheckNamesTheFlag: a refusal names what to change: one
// worker's buffer (--bs), a queue of buffers that one buffer would fit
// (--iodepth), or the workers together (--numjobs); threads and files are
// one per worker.
func TestWorkersCheckNamesTheFlag(t *testing.T) {
	const mib = 1 << 20
	w := func(count int, bs, buffers uint64) Workers {
		return Workers{Count: count, BufferSize: bs, Align: 4096, Buffers: buffers, Histograms: 7, HistogramSize: 264 << 10, FillBuffer: mib, TargetFiles: 4}
	}
	cases := []struct {
		name       string
		l          Limits
		w          Workers
		flag, says string // flag "" when it fits
	}{
		{"fits", Limits{Memory: 1 << 30}, w(4, 64<<10, 32), "", ""},
		{"one buffer too large", Limits{Memory: 1 << 30}, w(1, 1<<30, 2), "--bs", "more than half of the 1.0 GiB"},
		{"a queue too deep", Limits{Memory: 1 << 30}, w(1, 64*mib, 16), "--iodepth", "bs 64 MiB x 16 buffers and 7 histograms of 264 KiB per worker x 1 workers, plus the 1.0 MiB fill buffer"},
		{"two buffers are not a queue", Limits{Memory: 200 * mib}, w(1, 64*mib, 2), "--bs", ""},
		{"too many workers", Limits{Memory: 1 << 30}, w(8, 64*mib, 2), "--numjobs", "x 8 workers"},
		{"a thread per worker", Limits{Pids: 20, PidsSet: true}, w(16, 4096, 1), "--numjobs", "pids.max"},
		{"a file per worker and the target's", Limits{Files: 30, FilesOpen: 3}, w(16, 4096, 1), "--numjobs", "clyde needs 31"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old := Read
			Read = func() (Limits, error) { return tc.l, nil }
			t.Cleanup(func() { Read = old })
			err := tc.w.Check()
			if tc.flag == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var ue *result.UsageError
			if !errors.As(err, &ue) || ue.Flag != tc.flag || !strings.Contains(ue.Msg, tc.says) {
				t.Fatalf("err = %v, want a usage error for %s saying %q", err, tc.flag, tc.says)
			}
		})
	}
}
