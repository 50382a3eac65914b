package blockbench

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
)

// TestInvalidateEveryPass: fio invalidates the file's cache when it opens
// it for each pass (loops=N), not on a timer: a buffered workload of three
// passes drops the cache after the first and the second, exactly, however
// fast they run (the drop before the first is the group's, invalidate()).
func TestInvalidateEveryPass(t *testing.T) {
	if !osio.CanAdviseAccess {
		clydetest.Skip(t, "no posix_fadvise here: clyde cannot drop a file's cache")
	}
	var drops atomic.Int64
	old := dropCache
	dropCache = func(f osio.File) error { drops.Add(1); return old(f) }
	t.Cleanup(func() { dropCache = old })
	const blocks = 64
	w := Workload{Name: "passes", Filename: filepath.Join(t.TempDir(), "f"), RW: RandRead, BS: 4096, Size: blocks * 4096,
		IODepth: 1, NumJobs: 1, IOEngine: EnginePsync, Buffer: Buffer{Kind: BufferRandom}, Seed: 1, Invalidate: true,
		RandomMap: true, Loops: 3}
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, SizeGiven: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Jobs[0].Read.TotalIOs; got != 3*blocks {
		t.Fatalf("%d reads, want 3 passes of %d", got, blocks)
	}
	if n := drops.Load(); n != 2 {
		t.Errorf("%d drops in 3 passes, want one at the start of the 2nd and of the 3rd", n)
	}
}

// TestInvalidateEveryPassSized: with sizes drawn per I/O the pattern ends
// each pass, and the cache is dropped before the next one's first I/O,
// twice in three passes, as with one size.
func TestInvalidateEveryPassSized(t *testing.T) {
	if !osio.CanAdviseAccess {
		clydetest.Skip(t, "no posix_fadvise here: clyde cannot drop a file's cache")
	}
	var drops atomic.Int64
	old := dropCache
	dropCache = func(f osio.File) error { drops.Add(1); return old(f) }
	t.Cleanup(func() { dropCache = old })
	w := Workload{Name: "passes", Filename: filepath.Join(t.TempDir(), "f"), RW: RandRead, Size: 256 << 10,
		IODepth: 1, NumJobs: 1, IOEngine: EnginePsync, Buffer: Buffer{Kind: BufferRandom}, Seed: 1, Invalidate: true,
		RandomMap: true, Loops: 3}
	d := DirSizes{Min: 4096, Max: 16384, Split: []SizeShare{{Size: 4096, Pct: 50}, {Size: 16384, Pct: 50}}}
	BlockSizes{Dirs: [3]DirSizes{d, d, d}}.Apply(&w)
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, SizeGiven: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Jobs[0].Read.IOBytes; got != 3*w.Size {
		t.Fatalf("%d bytes read, want 3 passes of %d", got, w.Size)
	}
	if n := drops.Load(); n != 2 {
		t.Errorf("%d drops in 3 passes, want one at the start of the 2nd and of the 3rd", n)
	}
}
