//go:build windows

package blockbench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/osio"
)

// TestWindowsAIOKeepsDepth runs the engine through the loop on a file and
// checks that it had iodepth I/Os outstanding at once (the loop's depth
// counts: submitted and not yet reaped), never more, and counted every one.
// On Linux it runs under Wine (integration/wine).
func TestWindowsAIOKeepsDepth(t *testing.T) {
	path := filepath.Join(testDir(t), "f")
	if err := os.WriteFile(path, make([]byte, 4<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, depth := range []int{1, 8, 32} {
		for _, rw := range []RW{RandRead, RandWrite, Read} {
			t.Run(fmt.Sprintf("%s/QD%d", rw, depth), func(t *testing.T) {
				h, err := osio.OpenFile(path, osio.ReadWrite|osio.Direct|osio.Overlapped)
				if err != nil {
					t.Fatal(err)
				}
				e := mustEngine(EngineWindowsAIO)
				wl := &workload{Workload: Workload{RW: rw, BS: 4096, Size: 4 << 20, IODepth: depth, NumJobs: 1, Direct: true,
					IOEngine: EngineWindowsAIO, Buffer: Buffer{Kind: BufferRandom}, Seed: 1}, engine: e, depth: depth}
				w := newWorker(wl, 0)
				w.h, w.ctx = h, context.Background()
				defer w.close()
				w.ioLimit, w.remaining = 3000, 3000
				l, err := e.prepare(w)
				if err != nil {
					t.Fatal(err)
				}
				w.loop, w.base = l, time.Now()
				l.run(w)
				if w.err != nil {
					t.Fatal(w.err)
				}
				if high := deepest(w.inflight); high != depth {
					t.Errorf("at most %d I/Os were in flight at once, want iodepth %d", high, depth)
				}
				if l.taken() != 0 {
					t.Errorf("%d I/Os still in flight after the run", l.taken())
				}
				if n := w.ios[0] + w.ios[1]; n != 3000 {
					t.Errorf("%d I/Os completed, want 3000", n)
				}
			})
		}
	}
}

// deepest is the largest count h has events of.
func deepest(h countHist) int {
	for n := len(h) - 1; n >= 0; n-- {
		if h[n] > 0 {
			return n
		}
	}
	return 0
}
