//go:build linux

package blockbench

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
)

// runURingPass runs one pass of random reads over a pattern file of blocks
// blocks at depth, on a goroutine of its own (prepare locks it to its
// thread, and the ring belongs to that thread), with the engine named as
// engine and fio's iodepth_batch_complete_max completeMax; it returns the
// worker and its loop's reap policy (the most completions one reap takes).
func runURingPass(t *testing.T, path string, blocks int64, depth int, direct bool, engine Engine, completeMax int) (*worker, int) {
	t.Helper()
	flags := osio.ReadOnly
	if direct {
		flags |= osio.Direct
	}
	h, err := osio.OpenFile(path, flags)
	if err != nil {
		t.Fatal(err)
	}
	wl := &workload{Workload: Workload{RW: RandRead, BS: libaioTestBS, Size: blocks * libaioTestBS, IODepth: depth,
		NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 7, RandomMap: true, Direct: direct, IOEngine: engine,
		IODepthBatchCompleteMax: completeMax}}
	wl.engine, wl.depth = mustEngine(EngineIOUring), depth
	w := newWorker(wl, 0)
	w.h, w.ctx, w.base = h, context.Background(), time.Now()
	t.Cleanup(w.close)
	w.ioLimit, w.remaining = blocks, blocks
	var bad []string
	policy := make(chan int, 1)
	go func() {
		defer close(policy)
		l, err := wl.engine.prepare(w)
		if err != nil {
			w.fail(err)
			return
		}
		defer l.close()
		w.record(observeFunc(func(r IORecord) {
			dir, n, off := r.Dir, r.Bytes, r.Offset
			if i := l.unitAt(dir, off); i >= 0 {
				if !bytes.Equal(l.units[i].Buf[:n], blockPattern(off/libaioTestBS)) {
					bad = append(bad, "read at "+strconv.FormatInt(off, 10))
				}
				return
			}
			bad = append(bad, "no unit for the completion at "+strconv.FormatInt(off, 10))
		}), true)
		l.run(w)
		if l.taken() != 0 || l.nFree != depth {
			w.fail(fmt.Errorf("%d I/Os in flight, %d free slots after the run", l.taken(), l.nFree))
		}
		policy <- l.reapMax
	}()
	reapMax := <-policy
	if w.err != nil {
		t.Fatal(w.err)
	}
	if len(bad) > 0 {
		t.Fatalf("%d I/Os read the wrong bytes, first: %s", len(bad), bad[0])
	}
	if w.ios[dirRead] != blocks {
		t.Fatalf("%d reads, want %d", w.ios[dirRead], blocks)
	}
	return w, reapMax
}

// TestURingReapsAsFio checks that io_uring named as fio's engine reaps as
// fio 3.33 does by default (iodepth_batch_complete_min=max=1): the queue
// fills one I/O at a time to depth, each reap then takes one completion and
// its slot is refilled, so fio's iodepth_level is all at depth; the last
// I/O fills the queue, which is reaped by one before the drain takes the rest
// in one call (or in a few, when its bounded 10 ms wait ends first on a
// loaded machine). Under auto the loop takes every waiting completion.
func TestURingReapsAsFio(t *testing.T) {
	if err := uringAvailable(); err != nil {
		clydetest.Skipf(t, "io_uring not available here: %v", err)
	}
	const blocks, depth = 256, 16
	for _, direct := range []bool{false, true} {
		name := map[bool]string{false: "buffered", true: "direct"}[direct]
		t.Run(name, func(t *testing.T) {
			dir := shmDir
			if direct {
				dir = directDir
			}
			path := patternFile(t, dir(t), blocks)
			w, reapMax := runURingPass(t, path, blocks, depth, direct, EngineIOUring, 0)
			if reapMax != 1 {
				t.Errorf("io_uring by name reaps %d per call, want fio's 1", reapMax)
			}
			wantDepth := [7]int64{1, 2, 4, 8, blocks - (depth - 1)}
			if got := [7]int64(w.fioDepth()); got != wantDepth {
				t.Errorf("depth counts %v, want %v: the queue should stay at iodepth %d", w.fioDepth(), wantDepth, depth)
			}
			ones := int64(blocks - depth + 1)
			if w.fioReaps()[0] != 0 || w.fioReaps()[1] < ones || w.fioReaps()[1] > ones+3 || w.fioReaps()[2]+w.fioReaps()[3] < 1 || w.fioReaps()[2]+w.fioReaps()[3] > 3 || w.fioReaps()[4]+w.fioReaps()[5]+w.fioReaps()[6] != 0 {
				t.Errorf("reap counts %v, want %d of one I/O and the last %d in one call or a few", w.fioReaps(), ones, depth-1)
			}
		})
	}
	t.Run("auto", func(t *testing.T) {
		path := patternFile(t, shmDir(t), blocks)
		_, reapMax := runURingPass(t, path, blocks, depth, false, EngineAuto, 0)
		if reapMax != depth {
			t.Errorf("auto reaps %d per call, want every waiting completion (up to the depth, %d)", reapMax, depth)
		}
	})
}

// TestURingCompleteMax checks fio's iodepth_batch_complete_max on io_uring:
// a reap takes at most that many completions (a queue refilled after each
// reap then never drops below depth minus it), capped at the depth, and the
// drain takes the rest in one call.
func TestURingCompleteMax(t *testing.T) {
	if err := uringAvailable(); err != nil {
		clydetest.Skipf(t, "io_uring not available here: %v", err)
	}
	const blocks, depth = 256, 16
	path := patternFile(t, shmDir(t), blocks)
	for _, c := range []struct{ completeMax, reapMax int }{{4, 4}, {64, depth}} {
		t.Run(strconv.Itoa(c.completeMax), func(t *testing.T) {
			w, reapMax := runURingPass(t, path, blocks, depth, false, EngineIOUring, c.completeMax)
			if reapMax != c.reapMax {
				t.Fatalf("iodepth_batch_complete_max=%d reaps %d per call, want %d", c.completeMax, reapMax, c.reapMax)
			}
			if c.reapMax == 4 {
				// Refilled after reaps of at most 4, the queue is at 13..16
				// once it has filled (fio's buckets 8: 8..15, 16: 16..31);
				// every reap but the drain takes 1..4.
				if w.fioDepth()[0] != 1 || w.fioDepth()[1] != 2 || w.fioDepth()[2] != 4 || w.fioDepth()[4] == 0 || w.fioDepth()[5]+w.fioDepth()[6] != 0 ||
					w.fioReaps()[1] < (blocks-depth)/4 || w.fioReaps()[2] != 0 || w.fioReaps()[3] != 1 || w.fioReaps()[4]+w.fioReaps()[5]+w.fioReaps()[6] != 0 {
					t.Errorf("depth counts %v, reap counts %v: want the queue at 13..16 and reaps of at most 4, then one drain", w.fioDepth(), w.fioReaps())
				}
			}
		})
	}
}

// TestURingAutoRecordsItsReap checks that the result says how io_uring
// reaped: under auto, every waiting completion up to the depth, echoed as
// fio's iodepth_batch_complete_max=iodepth in the job options; named as
// fio's engine, fio's default, which fio's job options do not echo.
func TestURingAutoRecordsItsReap(t *testing.T) {
	if err := uringAvailable(); err != nil {
		clydetest.Skipf(t, "io_uring not available here: %v", err)
	}
	dir := shmDir(t)
	for _, c := range []struct {
		engine Engine
		want   string
	}{{EngineAuto, "8"}, {EngineIOUring, ""}} {
		t.Run(string(c.engine), func(t *testing.T) {
			w := Workload{Name: "r", Filename: filepath.Join(dir, string(c.engine)), RW: RandRead, BS: 4096, Size: 1 << 20,
				IODepth: 8, NumJobs: 1, IOEngine: c.engine, Buffer: Buffer{Kind: BufferRandom}, Seed: 1, RandomMap: true}
			res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, Shape: fioShape})
			if err != nil {
				t.Fatal(err)
			}
			o := res.Jobs[0].Options
			if o.Get("ioengine") != "io_uring" || o.Get("iodepth_batch_complete_max") != c.want {
				t.Errorf("job options ioengine=%q iodepth_batch_complete_max=%q, want io_uring and %q", o.Get("ioengine"), o.Get("iodepth_batch_complete_max"), c.want)
			}
		})
	}
}
