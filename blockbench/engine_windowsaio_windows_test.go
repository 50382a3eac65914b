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

// TestWindowsAIOKeepsDepth runs the engine's loop on a file and checks that
// it had iodepth I/Os outstanding at once (the engine's own count of
// submitted and not yet reaped I/Os), never more, and counted every one.
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
				e := windowsAIOEngine{}
				wl := &workload{Workload: Workload{RW: rw, BS: 4096, Size: 4 << 20, IODepth: depth, NumJobs: 1, Direct: true,
					IOEngine: EngineWindowsAIO, Buffer: Buffer{Kind: BufferRandom}, Seed: 1}, engine: e, depth: depth}
				w := newWorker(wl, 0)
				w.h, w.ctx = h, context.Background()
				defer w.close()
				w.ioLimit, w.remaining = 3000, 3000
				is, err := e.prepare(w)
				if err != nil {
					t.Fatal(err)
				}
				w.issuer, w.base = is, time.Now()
				is.run(w)
				if w.err != nil {
					t.Fatal(w.err)
				}
				a := is.(*aioIssuer)
				if a.highWater != depth {
					t.Errorf("at most %d I/Os were in flight at once, want iodepth %d", a.highWater, depth)
				}
				if a.inflight != 0 {
					t.Errorf("%d I/Os still in flight after the run", a.inflight)
				}
				if n := w.ios[0] + w.ios[1]; n != 3000 {
					t.Errorf("%d I/Os completed, want 3000", n)
				}
			})
		}
	}
}
