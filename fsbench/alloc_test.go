package fsbench

import (
	"context"
	"runtime"
	"testing"
)

// mallocsForRun counts heap allocations of a whole run.
func mallocsForRun(t *testing.T, o Options) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}

// TestLoopsDoNotAllocate checks that allocations do not grow with the work:
// four times the files and four times the seeks and chunks must cost (almost)
// no more allocations, so the I/O loops allocate nothing per operation.
func TestLoopsDoNotAllocate(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only the Linux file operations are allocation-free; elsewhere the os package allocates a path per file")
	}
	small := smallOptions(t.TempDir())
	small.FilesK, small.SizeMiB, small.Seeks, small.ByteIOMiB = 1, 4, 1000, 1
	big := small
	big.Dir = t.TempDir()
	big.FilesK, big.SizeMiB, big.Seeks, big.ByteIOMiB = 4, 16, 4000, 2
	mallocsForRun(t, small) // warm up lazily built state (timers, pools)
	a := mallocsForRun(t, small)
	b := mallocsForRun(t, big)
	extraOps := uint64(3*1024*6 + 3*1000 + 3*(16<<20/8192)*4 + 2<<20)
	// Growth may come from the names and buffers sized by the run, never per op.
	if b > a && b-a > extraOps/100 {
		t.Fatalf("allocations grew from %d to %d for %d more operations: the loops allocate", a, b, extraOps)
	}
	t.Logf("allocations: %d for the small run, %d for the big one", a, b)
}
