package fsbench

import (
	"context"
	"runtime"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
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
		clydetest.Skip(t, "only the Linux file operations are allocation-free; elsewhere the os package allocates a path per file")
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

// TestBytesPerFile checks what a name set keeps per file, through a whole
// file test's use of it (the names in order, the shuffle, the names in the
// shuffled order, twice): 2 bytes of marks with a drawn seed, and 4 more for
// bonnie++'s order with a given one, where storing the names and order took
// 17. Walking the names allocates nothing.
func TestBytesPerFile(t *testing.T) {
	const n = 1 << 16
	for _, tc := range []struct {
		name   string
		seeded bool
		limit  float64
	}{{"drawn seed", false, 2.1}, {"given seed", true, 6.1}} {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			o.SeedSet = tc.seeded
			o.Resolve()
			rng := o.newRand()
			path := make([]byte, 0, 64)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			s := newNameSet(rng, n, true, &o, nil)
			for i := range n {
				path = s.path(path, i)
			}
			for range 2 {
				s.shuffle(rng)
				for k := range n {
					path = s.path(path, s.visit(k))
				}
			}
			runtime.ReadMemStats(&after)
			runtime.KeepAlive(s)
			if per := float64(after.TotalAlloc-before.TotalAlloc) / n; per > tc.limit {
				t.Fatalf("%.2f bytes allocated per file, want at most %.1f", per, tc.limit)
			}
		})
	}
}
