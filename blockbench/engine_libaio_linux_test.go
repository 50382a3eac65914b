//go:build linux

package blockbench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/osio"
)

// directDir is a directory whose filesystem takes O_DIRECT (t.TempDir, or
// /var/tmp), or the test skips.
func directDir(t *testing.T) string {
	t.Helper()
	for _, dir := range []string{t.TempDir(), "/var/tmp"} {
		probe := filepath.Join(dir, "clyde-odirect-probe")
		fd, err := unix.Open(probe, unix.O_CREAT|unix.O_EXCL|unix.O_RDWR|unix.O_DIRECT, 0o600)
		if err != nil {
			continue
		}
		_ = unix.Close(fd)
		_ = os.Remove(probe)
		if dir == "/var/tmp" {
			d, err := os.MkdirTemp(dir, "clyde-libaio-test-")
			if err != nil {
				continue
			}
			t.Cleanup(func() { _ = os.RemoveAll(d) })
			return d
		}
		return dir
	}
	clydetest.Skip(t, "neither the test's temporary directory nor /var/tmp takes O_DIRECT here")
	return ""
}

// shmDir is a directory on tmpfs, for buffered I/O that never waits on a
// disk, or the test skips.
func shmDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/dev/shm", "clyde-libaio-test-")
	if err != nil {
		clydetest.Skipf(t, "no /dev/shm here: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	return d
}

// libaioWorker is a worker of wl on the file at path, opened as the runner
// opens it, with its libaio loop prepared.
func libaioWorker(t *testing.T, path string, wl *workload, flags osio.Flag) (*worker, *ioLoop) {
	t.Helper()
	e := mustEngine(EngineLibaio)
	if err := e.available(); err != nil {
		clydetest.Skipf(t, "libaio not available here: %v", err)
	}
	if wl.Direct {
		flags |= osio.Direct
	}
	h, err := osio.OpenFile(path, flags)
	if err != nil {
		t.Fatal(err)
	}
	wl.engine, wl.IOEngine, wl.depth = e, EngineLibaio, wl.IODepth
	w := newWorker(wl, 0)
	w.h, w.ctx, w.base = h, context.Background(), time.Now()
	t.Cleanup(w.close)
	l, err := e.prepare(w)
	if err != nil {
		t.Fatal(err)
	}
	w.loop = l
	return w, l
}

// TestLibaioMovesTheRightBytes runs one pass of random reads and writes,
// each block once (fio's random map), and checks every read got the bytes
// at its offset and every write left its buffer there and nowhere else,
// buffered on tmpfs and with O_DIRECT. The depth counts are fio's for a
// queue that fills and then is refilled one I/O per reap.
func TestLibaioMovesTheRightBytes(t *testing.T) {
	const blocks, depth = 256, 16
	for _, direct := range []bool{false, true} {
		name := map[bool]string{false: "buffered", true: "direct"}[direct]
		t.Run(name, func(t *testing.T) {
			dir := shmDir
			if direct {
				dir = directDir
			}
			path := patternFile(t, dir(t), blocks)
			wl := &workload{Workload: Workload{RW: RandRW, RWMixRead: 50, BS: libaioTestBS, Size: blocks * libaioTestBS, IODepth: depth,
				NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 7, RandomMap: true, Direct: direct}}
			w, a := libaioWorker(t, path, wl, osio.ReadWrite)
			w.ioLimit, w.remaining = blocks, blocks
			seen := watchBytes(w, a)
			a.run(w)
			if w.err != nil {
				t.Fatal(w.err)
			}
			if n := w.ios[dirRead] + w.ios[dirWrite]; n != blocks || w.ios[dirRead] == 0 || w.ios[dirWrite] == 0 {
				t.Fatalf("%d reads, %d writes, want %d I/Os of both", w.ios[dirRead], w.ios[dirWrite], blocks)
			}
			if len(seen.bad) > 0 {
				t.Fatalf("%d I/Os moved the wrong bytes, first: %s", len(seen.bad), seen.bad[0])
			}
			w.close()
			seen.checkFile(t, path, blocks)
			// The queue fills one I/O at a time to depth, then each reap
			// takes one and its slot is refilled: fio's io_u_map.
			wantDepth := [7]int64{1, 2, 4, 8, blocks - (depth - 1)}
			if got := [7]int64(w.fioDepth()); got != wantDepth {
				t.Errorf("depth counts %v, want %v: the queue should stay at iodepth %d", got, wantDepth, depth)
			}
			// One I/O per reap while I/O is left to issue; the drain at the
			// end takes the last depth in one call, or in a few when its
			// bounded wait (10 ms at a time) ends before all are done, as
			// on a loaded machine.
			reaps := w.fioReaps()
			if reaps[0] != 0 || reaps[1] < blocks-depth || reaps[1] > blocks-depth+3 || reaps[2]+reaps[3] > 3 || reaps[4]+reaps[5]+reaps[6] != 0 {
				t.Errorf("reap counts %v, want %d of one I/O and the last %d in one call or a few", reaps, blocks-depth, depth)
			}
			if a.taken() != 0 || a.nFree != depth {
				t.Errorf("%d I/Os in flight, %d free slots after the run", a.taken(), a.nFree)
			}
		})
	}
}

// scriptedPattern is the worker's rw mode, except that I/O number at is
// replaced by one of its own.
type scriptedPattern struct {
	n, at     int
	dir, size int
	off       int64
}

func (p *scriptedPattern) next(w *worker) (int, int64, int) {
	if p.n++; p.n-1 == p.at {
		return p.dir, p.off, p.size
	}
	return fioPattern{}.next(w)
}

func (p *scriptedPattern) maxSize(w *worker) int { return int(w.spec.BS) }

// TestLibaioReportsErrors checks both ways an I/O fails: io_submit refuses
// it (a write on a descriptor opened read-only: EBADF), and the kernel
// takes it and completes it with an error (a write past the largest file
// the filesystem allows: EFBIG in its io_event, while three I/Os submitted
// before it wait to be reaped). Either way the worker's error names the
// I/O and nothing is left in flight.
func TestLibaioReportsErrors(t *testing.T) {
	t.Run("io_submit refuses", func(t *testing.T) {
		path := patternFile(t, t.TempDir(), 64)
		wl := &workload{Workload: Workload{RW: RandRW, RWMixRead: 50, BS: libaioTestBS, Size: 64 * libaioTestBS, IODepth: 8,
			NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 3}}
		w, a := libaioWorker(t, path, wl, osio.ReadOnly)
		a.run(w)
		if !errors.Is(w.err, unix.EBADF) || !strings.Contains(w.err.Error(), "io_submit (write 4096 bytes at offset") {
			t.Errorf("err = %v, want io_submit's EBADF naming the write", w.err)
		}
		if a.taken() != 0 || a.nFree != 8 {
			t.Errorf("%d I/Os in flight, %d free slots: the loop returned before reaping", a.taken(), a.nFree)
		}
	})
	t.Run("completion", func(t *testing.T) {
		path := patternFile(t, t.TempDir(), 64)
		wl := &workload{Workload: Workload{RW: RandWrite, BS: libaioTestBS, Size: 64 * libaioTestBS, IODepth: 8,
			NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 3}}
		w, a := libaioWorker(t, path, wl, osio.ReadWrite)
		w.pattern = &scriptedPattern{at: 3, dir: dirWrite, off: 1 << 62, size: libaioTestBS}
		a.run(w)
		if !errors.Is(w.err, unix.EFBIG) || !strings.Contains(w.err.Error(), "write 4096 bytes at offset 4611686018427387904") {
			t.Errorf("err = %v, want EFBIG for the write at offset 2^62", w.err)
		}
		if w.ios[dirWrite] < 3 {
			t.Errorf("%d writes counted, want the 3 before the failing one at least", w.ios[dirWrite])
		}
		if a.taken() != 0 || a.nFree != 8 {
			t.Errorf("%d I/Os in flight, %d free slots: the loop returned before reaping", a.taken(), a.nFree)
		}
	})
}

// TestLibaioStopReapsInFlight stops a time-based direct run from its
// context while the queue is full and checks the loop reaped every I/O
// it had submitted before returning: none is left in the kernel.
func TestLibaioStopReapsInFlight(t *testing.T) {
	const depth = 32
	path := patternFile(t, directDir(t), 1024)
	wl := &workload{Workload: Workload{RW: RandRead, BS: libaioTestBS, Size: 1024 * libaioTestBS, IODepth: depth,
		NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 5, Direct: true, TimeBased: true, Runtime: time.Minute}}
	w, a := libaioWorker(t, path, wl, osio.ReadOnly)
	ctx, cancel := context.WithCancel(context.Background())
	w.ctx = ctx
	time.AfterFunc(150*time.Millisecond, cancel)
	a.run(w)
	cancel()
	if w.err != nil {
		t.Fatal(w.err)
	}
	if !w.stoppedEarly || w.inflight[depth] == 0 {
		t.Fatalf("stopped early %v, depth counts %v: the run should have filled its queue and been stopped", w.stoppedEarly, w.inflight)
	}
	if a.taken() != 0 || a.nFree != depth {
		t.Errorf("%d I/Os in flight, %d free slots after the stop", a.taken(), a.nFree)
	}
	// Nothing the kernel holds: a poll finds no completion left.
	if n, err := a.e.GetEvents(0, depth); err != nil || n != 0 {
		t.Errorf("io_getevents after the stop: %d events, %v: completions were left unreaped", n, err)
	}
	if w.ios[dirRead] == 0 {
		t.Error("no I/O completed")
	}
}

// TestLibaioEagainReapsAndRetries runs a queue deeper than its AIO context
// holds: the kernel refuses io_submit with EAGAIN once the context is full
// (capEngine stands in for a context of 64 at iodepth 512; the engine's own
// EAGAIN is internal/ioengine's TestLibaioEagain), and the loop must reap
// and submit the refused I/O again, losing and repeating none.
func TestLibaioEagainReapsAndRetries(t *testing.T) {
	const depth, ios = 512, 2048
	path := patternFile(t, shmDir(t), 256)
	wl := &workload{Workload: Workload{RW: RandRead, BS: libaioTestBS, Size: 256 * libaioTestBS, IODepth: depth,
		NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 9}}
	w, a := libaioWorker(t, path, wl, osio.ReadOnly)
	c := &capEngine{Engine: a.e, capacity: 64}
	a.e = c
	w.ioLimit, w.remaining = ios, ios
	a.run(w)
	if w.err != nil {
		t.Fatal(w.err)
	}
	if c.refused == 0 {
		t.Fatal("no submission was refused: nothing tested")
	}
	if w.ios[dirRead] != ios || w.inflight.total() != ios {
		t.Errorf("%d reads completed, %d submissions counted, want %d of each (context of %d)", w.ios[dirRead], w.inflight.total(), ios, c.capacity)
	}
	if a.taken() != 0 || a.nFree != depth || a.pN != 0 {
		t.Errorf("%d in flight, %d free, %d pending after the run", a.taken(), a.nFree, a.pN)
	}
}

// TestLibaioCompleteMax checks fio's iodepth_batch_complete_max on libaio:
// each io_getevents waits for one completion and takes up to that many
// (capped at the depth), and the drain takes the rest in one call or a few.
func TestLibaioCompleteMax(t *testing.T) {
	const blocks, depth = 256, 16
	path := patternFile(t, shmDir(t), blocks)
	for _, c := range []struct{ completeMax, reapMax int }{{4, 4}, {64, depth}} {
		t.Run(strconv.Itoa(c.completeMax), func(t *testing.T) {
			wl := &workload{Workload: Workload{RW: RandRead, BS: libaioTestBS, Size: blocks * libaioTestBS, IODepth: depth,
				NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 7, RandomMap: true, IODepthBatchCompleteMax: c.completeMax}}
			w, a := libaioWorker(t, path, wl, osio.ReadOnly)
			if a.reapMax != c.reapMax {
				t.Fatalf("iodepth_batch_complete_max=%d reaps %d per call, want %d", c.completeMax, a.reapMax, c.reapMax)
			}
			w.ioLimit, w.remaining = blocks, blocks
			a.run(w)
			if w.err != nil {
				t.Fatal(w.err)
			}
			if w.ios[dirRead] != blocks {
				t.Fatalf("%d reads, want %d", w.ios[dirRead], blocks)
			}
			if c.reapMax == 4 && w.fioReaps()[1] < (blocks-depth)/4 {
				t.Errorf("reap counts %v: want reaps of 1..4 while the queue is refilled", w.fioReaps())
			}
			if w.fioReaps()[4]+w.fioReaps()[5]+w.fioReaps()[6] != 0 {
				t.Errorf("reap counts %v: a reap took more than the depth", w.fioReaps())
			}
		})
	}
}
