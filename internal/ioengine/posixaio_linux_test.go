//go:build linux

package ioengine

import (
	"sync"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/osio"
)

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
	t.Run("one descriptor: one at a time, in submit order", testPoolOneDescriptor)
	t.Run("many descriptors: at most aio_threads at once", testPoolManyDescriptors)
}

// waitFor polls cond until it holds, or fails the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

func testPoolOneDescriptor(t *testing.T) {
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
}

func testPoolManyDescriptors(t *testing.T) {
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
}

// TestPosixAIOLeavesNothingInThePool runs reads and writes through the
// engine and a sync behind them: after the units are back and the sync
// done, the pool holds no request of the descriptor and the sync's request
// is done, without error.
func TestPosixAIOLeavesNothingInThePool(t *testing.T) {
	const blocks = 64
	path := patternFile(t, testDir(t), blocks, 0)
	e := openEngine(t, posixaio, path, osio.ReadWrite, 16, blocks*testBS)
	var reqs []ioReq
	for i := range int64(blocks) {
		op := Read
		if i%3 == 0 {
			op = Write
		}
		reqs = append(reqs, ioReq{op, i * testBS, make([]byte, testBS)})
	}
	drive(t, posixaio, e, 16, reqs)
	a := e.(*posixAIOEngine)
	if u := (&Unit{Op: Sync, Index: 16}); e.Queue(u) != Completed || u.Err != nil {
		t.Fatalf("sync: %v", u.Err)
	}
	if a.syncReq.inProgress.Load() || a.syncReq.err != nil {
		t.Errorf("the sync request: in progress %v, err %v", a.syncReq.inProgress.Load(), a.syncReq.err)
	}
	posixAIO.mu.Lock()
	left := posixAIO.requests[a.files[0].Fd()]
	posixAIO.mu.Unlock()
	if left != nil || a.inflight != 0 {
		t.Errorf("the pool still holds a request of the descriptor (%d in flight)", a.inflight)
	}
}
