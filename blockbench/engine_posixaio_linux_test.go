//go:build linux

package blockbench

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/osio"
)

// posixAIOWorker is a worker of wl on the file at path, opened as the
// runner opens it, with its posixaio loop prepared.
func posixAIOWorker(t *testing.T, path string, wl *workload, flags osio.Flag) (*worker, *ioLoop) {
	t.Helper()
	h, err := osio.OpenFile(path, flags)
	if err != nil {
		t.Fatal(err)
	}
	e := mustEngine(EnginePosixAIO)
	wl.engine, wl.IOEngine, wl.depth = e, EnginePosixAIO, wl.IODepth
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

// TestPosixAIOMovesTheRightBytes runs one pass of random reads and writes
// through the rebuilt POSIX AIO, each block once, and checks every read got
// the bytes at its offset and every write left its buffer there and nowhere
// else; every I/O is counted once in the depth counts and once in a reap,
// and nothing is left in flight (internal/ioengine's
// TestPosixAIOLeavesNothingInThePool: nor queued in the pool).
func TestPosixAIOMovesTheRightBytes(t *testing.T) {
	const blocks = 256
	for _, depth := range []int{1, 16} {
		t.Run("iodepth "+strconv.Itoa(depth), func(t *testing.T) {
			path := patternFile(t, shmDir(t), blocks)
			wl := &workload{Workload: Workload{RW: RandRW, RWMixRead: 50, BS: libaioTestBS, Size: blocks * libaioTestBS, IODepth: depth,
				NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 7, RandomMap: true}}
			w, a := posixAIOWorker(t, path, wl, osio.ReadWrite)
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
			if w.inflight.total() != blocks || w.inflight[depth+1:].total() != 0 {
				t.Errorf("depth counts %v: want %d submissions, none deeper than %d", w.fioDepth(), blocks, depth)
			}
			if depth == 1 && w.fioDepth()[0] != blocks {
				t.Errorf("depth counts %v: at iodepth 1 every submission is at depth 1", w.fioDepth())
			}
			if w.reaped.total() == 0 || w.reaped.total() > blocks {
				t.Errorf("reap counts %v for %d I/Os", w.fioReaps(), blocks)
			}
			if a.taken() != 0 || a.nFree != depth {
				t.Errorf("%d I/Os in flight, %d free slots after the run", a.taken(), a.nFree)
			}
		})
	}
}

// TestPosixAIOReportsErrors checks that a request the helper's pwrite
// fails (a descriptor opened read-only: EBADF) is the worker's error,
// naming the I/O, and that the loop reaps what it had in flight before it
// returns.
func TestPosixAIOReportsErrors(t *testing.T) {
	path := patternFile(t, t.TempDir(), 64)
	wl := &workload{Workload: Workload{RW: RandRW, RWMixRead: 50, BS: libaioTestBS, Size: 64 * libaioTestBS, IODepth: 8,
		NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 3}}
	w, a := posixAIOWorker(t, path, wl, osio.ReadOnly)
	a.run(w)
	if !errors.Is(w.err, unix.EBADF) || !strings.Contains(w.err.Error(), "write 4096 bytes at offset") {
		t.Errorf("err = %v, want the helper's EBADF naming the write", w.err)
	}
	if a.taken() != 0 || a.nFree != 8 {
		t.Errorf("%d I/Os in flight, %d free slots: the loop returned before reaping", a.taken(), a.nFree)
	}
}

// TestPosixAIOStopReapsInFlight stops a time-based run from its context
// while its queue is full and checks every I/O submitted was reaped before
// the loop returned.
func TestPosixAIOStopReapsInFlight(t *testing.T) {
	const depth = 32
	path := patternFile(t, shmDir(t), 1024)
	wl := &workload{Workload: Workload{RW: RandRead, BS: libaioTestBS, Size: 1024 * libaioTestBS, IODepth: depth,
		NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 5, TimeBased: true, Runtime: time.Minute}}
	w, a := posixAIOWorker(t, path, wl, osio.ReadOnly)
	ctx, cancel := context.WithCancel(context.Background())
	w.ctx = ctx
	time.AfterFunc(150*time.Millisecond, cancel)
	a.run(w)
	cancel()
	if w.err != nil {
		t.Fatal(w.err)
	}
	if !w.stoppedEarly || w.ios[dirRead] == 0 {
		t.Fatalf("stopped early %v, %d reads: the run should have done I/O and been stopped", w.stoppedEarly, w.ios[dirRead])
	}
	if a.taken() != 0 || a.nFree != depth {
		t.Errorf("%d I/Os in flight, %d free slots after the stop", a.taken(), a.nFree)
	}
	// No request still in progress: the engine has none left to give.
	if n, err := a.e.GetEvents(0, depth); err != nil || n != 0 {
		t.Errorf("after the stop the engine gave %d more (%v)", n, err)
	}
}

// TestPosixAIOSyncQueuesBehindWrites runs writes with fsync=4 through
// posixaio: each sync is aio_fsync on the descriptor, counted as fio counts
// fsync= (a sync after every 4th write but the last); internal/ioengine's
// TestPosixAIOLeavesNothingInThePool checks the sync request is done.
func TestPosixAIOSyncQueuesBehindWrites(t *testing.T) {
	const blocks = 64
	path := patternFile(t, shmDir(t), blocks)
	wl := &workload{Workload: Workload{RW: Write, BS: libaioTestBS, Size: blocks * libaioTestBS, IODepth: 4,
		NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 3, Fsync: 4}}
	w, a := posixAIOWorker(t, path, wl, osio.ReadWrite)
	a.run(w)
	if w.err != nil {
		t.Fatal(w.err)
	}
	if w.ios[dirWrite] != blocks || w.syncs != blocks/4-1 {
		t.Errorf("%d writes, %d fsyncs; want %d and %d", w.ios[dirWrite], w.syncs, blocks, blocks/4-1)
	}
	if a.taken() != 0 {
		t.Errorf("%d I/Os in flight after the run", a.taken())
	}
}
