//go:build linux

package blockbench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/osio"
)

// posixAIOWorker is a worker of wl on the file at path, opened as the
// runner opens it, with its posixaio issuer prepared.
func posixAIOWorker(t *testing.T, path string, wl *workload, flags osio.Flag) (*worker, *posixAIOIssuer) {
	t.Helper()
	h, err := osio.OpenFile(path, flags)
	if err != nil {
		t.Fatal(err)
	}
	wl.engine, wl.IOEngine, wl.depth = posixAIOEngine{}, EnginePosixAIO, wl.IODepth
	w := newWorker(wl, 0)
	w.h, w.ctx, w.base = h, context.Background(), time.Now()
	t.Cleanup(w.close)
	is, err := posixAIOEngine{}.prepare(w)
	if err != nil {
		t.Fatal(err)
	}
	w.issuer = is
	return w, is.(*posixAIOIssuer)
}

// TestPosixAIOMovesTheRightBytes runs one pass of random reads and writes
// through the rebuilt POSIX AIO, each block once, and checks every read got
// the bytes at its offset and every write left its buffer there and nowhere
// else; every I/O is counted once in the depth counts and once in a reap,
// and nothing is left in flight or queued in the pool.
func TestPosixAIOMovesTheRightBytes(t *testing.T) {
	const blocks = 256
	for _, depth := range []int{1, 16} {
		t.Run("iodepth "+strconv.Itoa(depth), func(t *testing.T) {
			path := patternFile(t, shmDir(t), blocks)
			wl := &workload{Workload: Workload{RW: RandRW, RWMixRead: 50, BS: libaioTestBS, Size: blocks * libaioTestBS, IODepth: depth,
				NumJobs: 1, Buffer: Buffer{Kind: BufferRandom}, Seed: 7, RandomMap: true}}
			w, a := posixAIOWorker(t, path, wl, osio.ReadWrite)
			w.ioLimit, w.remaining = blocks, blocks
			written := map[int64][]byte{}
			var bad []string
			w.record(observeFunc(func(r IORecord) {
				dir, n, off := r.Dir, r.Bytes, r.Offset
				for i := range a.slots {
					s := &a.slots[i]
					if s.req.off != off || s.dir != dir || s.inFlight {
						continue
					}
					if dir == dirWrite {
						written[off] = bytes.Clone(s.buf[:n])
					} else if !bytes.Equal(s.buf[:n], blockPattern(off/libaioTestBS)) {
						bad = append(bad, "read at "+strconv.FormatInt(off, 10))
					}
					return
				}
				bad = append(bad, "no slot for the completion at "+strconv.FormatInt(off, 10))
			}), true)
			a.run(w)
			if w.err != nil {
				t.Fatal(w.err)
			}
			if n := w.ios[dirRead] + w.ios[dirWrite]; n != blocks || w.ios[dirRead] == 0 || w.ios[dirWrite] == 0 {
				t.Fatalf("%d reads, %d writes, want %d I/Os of both", w.ios[dirRead], w.ios[dirWrite], blocks)
			}
			if len(bad) > 0 {
				t.Fatalf("%d I/Os moved the wrong bytes, first: %s", len(bad), bad[0])
			}
			fd := w.h.Fd()
			w.close()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for i := range int64(blocks) {
				want := blockPattern(i)
				if b, ok := written[i*libaioTestBS]; ok {
					want = b
				}
				if !bytes.Equal(data[i*libaioTestBS:(i+1)*libaioTestBS], want) {
					t.Fatalf("block %d holds the wrong bytes (written: %v)", i, written[i*libaioTestBS] != nil)
				}
			}
			if w.inflight.total() != blocks || w.inflight[depth+1:].total() != 0 {
				t.Errorf("depth counts %v: want %d submissions, none deeper than %d", w.fioDepth(), blocks, depth)
			}
			if depth == 1 && w.fioDepth()[0] != blocks {
				t.Errorf("depth counts %v: at iodepth 1 every submission is at depth 1", w.fioDepth())
			}
			if w.reaped.total() == 0 || w.reaped.total() > blocks {
				t.Errorf("reap counts %v for %d I/Os", w.fioReaps(), blocks)
			}
			if a.inflight != 0 || len(a.free) != depth {
				t.Errorf("%d I/Os in flight, %d free slots after the run", a.inflight, len(a.free))
			}
			posixAIO.mu.Lock()
			left := posixAIO.requests[fd]
			posixAIO.mu.Unlock()
			if left != nil {
				t.Error("the pool still holds a request of the worker's descriptor")
			}
		})
	}
}

// gatedFile is an aioFile whose preads wait for a release, and record
// the order they ran in and how many ran at once.
type gatedFile struct {
	fd      int
	release chan struct{}
	mu      *sync.Mutex
	order   *[]int64
	running *int
	most    *int
}

func (g gatedFile) Pread(b []byte, off int64) (int, error) {
	g.mu.Lock()
	*g.order = append(*g.order, off)
	*g.running++
	*g.most = max(*g.most, *g.running)
	g.mu.Unlock()
	<-g.release
	g.mu.Lock()
	*g.running--
	g.mu.Unlock()
	return len(b), nil
}
func (g gatedFile) Pwrite(b []byte, off int64) (int, error) { return g.Pread(b, off) }
func (g gatedFile) Sync() error                             { return nil }
func (g gatedFile) Datasync() error                         { return nil }
func (g gatedFile) Fd() int                                 { return g.fd }

// TestAIOPoolModel holds the pool to glibc's rules with files whose reads
// wait for the test: requests on one descriptor run one at a time in the
// order they were submitted; requests on different descriptors run at once
// on up to aio_threads helpers, the rest waiting on the run list until a
// helper is free.
func TestAIOPoolModel(t *testing.T) {
	waitFor := func(t *testing.T, what string, cond func() bool) {
		t.Helper()
		for start := time.Now(); !cond(); time.Sleep(time.Millisecond) {
			if time.Since(start) > 10*time.Second {
				t.Fatalf("gave up waiting for %s", what)
			}
		}
	}
	t.Run("one descriptor: one at a time, in submit order", func(t *testing.T) {
		p := newAIOPool()
		var mu sync.Mutex
		var order []int64
		var running, most int
		f := gatedFile{fd: 7, release: make(chan struct{}), mu: &mu, order: &order, running: &running, most: &most}
		reqs := make([]aioRequest, 6)
		for i := range reqs {
			reqs[i] = aioRequest{f: f, fd: 7, op: aioRead, buf: make([]byte, 8), off: int64(i) * 8}
			p.enqueue(&reqs[i])
		}
		for i := range reqs {
			waitFor(t, "the next request to start", func() bool { mu.Lock(); defer mu.Unlock(); return len(order) == i+1 })
			f.release <- struct{}{}
		}
		for i := range reqs {
			waitFor(t, "the requests to finish", func() bool { return !reqs[i].inProgress.Load() })
		}
		if most != 1 {
			t.Errorf("%d requests of one descriptor ran at once, want 1", most)
		}
		for i, off := range order {
			if off != int64(i)*8 {
				t.Fatalf("ran in order %v, want submit order", order)
			}
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.nthreads != 1 || len(p.requests) != 0 || p.runlist != nil {
			t.Errorf("%d helpers for one descriptor, %d descriptors busy, run list %v: want 1, 0, empty", p.nthreads, len(p.requests), p.runlist)
		}
	})
	t.Run("many descriptors: at most aio_threads at once", func(t *testing.T) {
		p := newAIOPool()
		var mu sync.Mutex
		var order []int64
		var running, most int
		release := make(chan struct{})
		const n = aioThreads + 5
		reqs := make([]aioRequest, n)
		for i := range reqs {
			f := gatedFile{fd: 100 + i, release: release, mu: &mu, order: &order, running: &running, most: &most}
			reqs[i] = aioRequest{f: f, fd: f.fd, op: aioRead, buf: make([]byte, 8), off: int64(i)}
			p.enqueue(&reqs[i])
		}
		waitFor(t, "aio_threads requests to run", func() bool { mu.Lock(); defer mu.Unlock(); return running == aioThreads })
		time.Sleep(20 * time.Millisecond) // room for a wrong 21st helper to start
		mu.Lock()
		got := running
		mu.Unlock()
		p.mu.Lock()
		threads := p.nthreads
		p.mu.Unlock()
		if got != aioThreads || threads != aioThreads {
			t.Errorf("%d requests running on %d helpers, want %d on %d", got, threads, aioThreads, aioThreads)
		}
		for range n {
			release <- struct{}{}
		}
		for i := range reqs {
			waitFor(t, "every request to finish", func() bool { return !reqs[i].inProgress.Load() })
		}
		if most != aioThreads || len(order) != n {
			t.Errorf("%d ran at most at once, %d ran in all; want %d and %d", most, len(order), aioThreads, n)
		}
	})
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
	if a.inflight != 0 || len(a.free) != 8 {
		t.Errorf("%d I/Os in flight, %d free slots: the loop returned before reaping", a.inflight, len(a.free))
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
	if a.inflight != 0 || len(a.free) != depth {
		t.Errorf("%d I/Os in flight, %d free slots after the stop", a.inflight, len(a.free))
	}
	for i := range a.slots {
		if a.slots[i].req.inProgress.Load() {
			t.Fatalf("slot %d's request is still in progress after the stop", i)
		}
	}
}

// TestPosixAIOSyncQueuesBehindWrites runs writes with fsync=4 through
// posixaio: each sync is aio_fsync on the descriptor, counted as fio counts
// fsync= (a sync after every 4th write but the last).
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
	if a.syncReq.inProgress.Load() || a.syncReq.err != nil {
		t.Errorf("the sync request: in progress %v, err %v", a.syncReq.inProgress.Load(), a.syncReq.err)
	}
}
