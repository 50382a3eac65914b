//go:build linux

package blockbench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/clydebench/clyde/internal/clydetest"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/osio"
)

// TestURingWaitIsBounded checks that a wait for a completion that never
// comes returns: the loop waits through RawSyscall, which holds the Go
// processor, so an unbounded wait on a stalled device would hold it forever.
func TestURingWaitIsBounded(t *testing.T) {
	if err := uringAvailable(); err != nil {
		clydetest.Skipf(t, "io_uring not available here: %v", err)
	}
	r, err := setupRing(4)
	if err != nil {
		t.Fatal(err)
	}
	if r.features&uringFeatExtArg == 0 {
		r.close()
		clydetest.Skip(t, "kernel without IORING_FEAT_EXT_ARG (5.11): waits go through Syscall, unbounded, as fio's do")
	}
	done := make(chan error, 1)
	go func() {
		// SINGLE_ISSUER binds the ring to the thread that enables it; the
		// thread ends with this goroutine.
		runtime.LockOSThread()
		defer r.close()
		if err := r.enable(); err != nil {
			done <- err
			return
		}
		// Nothing is in flight, so only the timeout can end this wait.
		n, err := r.enter(0, 1)
		if err == nil && n != 0 {
			err = fmt.Errorf("the wait reports %d SQEs taken, want 0", n)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("a wait with nothing in flight has not returned after a minute: the raw wait is unbounded")
	}
}

// signalEveryThread sends SIGURG, the signal Go preempts goroutines with,
// to every thread of the process until stop closes: the signals a busy
// machine leaves pending on a thread while it waits for a CPU.
func signalEveryThread(stop <-chan struct{}) {
	pid := os.Getpid()
	for !chanClosed(stop) {
		ents, _ := os.ReadDir("/proc/self/task")
		for _, e := range ents {
			if tid, err := strconv.Atoi(e.Name()); err == nil {
				_ = unix.Tgkill(pid, tid, unix.SIGURG)
			}
		}
	}
}

func chanClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// TestURingWritesSurviveSignals checks that no write is cancelled by the
// kernel when the thread that submits it keeps getting signals (see
// startIOWorker): buffered writes to new files, each from a fresh thread,
// so each needs its thread's first io-wq worker, while two goroutines send
// SIGURG to every thread and two more spin. Before the io-wq worker was
// started in setupIssuerRing, 4 to 12 of these 1,600 writes came back
// ECANCELED on the 2-CPU test machine, as "write 4096 bytes at offset 0:
// operation canceled" did in whole-package runs.
func TestURingWritesSurviveSignals(t *testing.T) {
	if err := uringAvailable(); err != nil {
		clydetest.Skipf(t, "io_uring not available here: %v", err)
	}
	if testing.Short() {
		clydetest.Skip(t, "a load generator: skipped with -short")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	stop := make(chan struct{})
	var load sync.WaitGroup
	for range 2 {
		load.Go(func() { signalEveryThread(stop) })
		load.Go(func() {
			for !chanClosed(stop) {
			}
		})
	}
	defer load.Wait()
	defer close(stop)
	const rounds, threads, writes = 100, 4, 4
	dir := t.TempDir()
	buf := osio.AlignedBuffer(4096)
	errs := make(chan error, rounds*threads*writes)
	for round := range rounds {
		var wg sync.WaitGroup
		for k := range threads {
			wg.Go(func() {
				// The thread ends with the goroutine, and its io-wq with it.
				runtime.LockOSThread()
				if err := writeOnFreshRing(filepath.Join(dir, fmt.Sprint(round, "-", k)), buf, writes); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
	}
	close(errs)
	n := 0
	for err := range errs {
		if n++; n <= 3 {
			t.Error(err)
		}
	}
	if n > 0 {
		t.Errorf("%d of %d writes failed", n, rounds*threads*writes)
	}
}

// writeOnFreshRing writes n blocks of buf to a new file at path through a
// new ring on the calling (locked) thread, all in flight at once, and
// returns the first failure.
func writeOnFreshRing(path string, buf []byte, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := setupIssuerRing(uint32(n))
	if err != nil {
		return err
	}
	defer r.close()
	for i := range n {
		tail := *r.sqTail
		r.sqes[tail&r.sqMask] = uringSQE{opcode: uringOpWrite, fd: int32(f.Fd()), off: uint64(i * len(buf)),
			addr: uint64(uintptr(unsafe.Pointer(unsafe.SliceData(buf)))), len: uint32(len(buf)), userData: uint64(i)}
		atomic.StoreUint32(r.sqTail, tail+1)
		for taken := 0; taken == 0; {
			if taken, err = r.enter(1, 0); err != nil && err != unix.EAGAIN && err != unix.EBUSY {
				return err
			}
		}
	}
	var first error
	for done := 0; done < n; {
		if _, err := r.enter(0, 1); err != nil && err != unix.EAGAIN && err != unix.EBUSY {
			return err
		}
		for ; r.cqReady(); done++ {
			head := *r.cqHead
			c := r.cqes[head&r.cqMask]
			atomic.StoreUint32(r.cqHead, head+1)
			if c.res < 0 && first == nil {
				first = fmt.Errorf("write %d bytes at offset %d: %w", len(buf), int(c.userData)*len(buf), unix.Errno(-c.res))
			}
		}
	}
	return first
}

// runURingPass runs one pass of random reads over a pattern file of blocks
// blocks at depth, on a goroutine of its own (prepare locks it to its
// thread, and the ring belongs to that thread), with the engine named as
// engine and fio's iodepth_batch_complete_max completeMax; it returns the
// worker and its issuer's reap policy.
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
	wl.engine, wl.depth = uringEngine{}, depth
	w := newWorker(wl, 0)
	w.h, w.ctx, w.base = h, context.Background(), time.Now()
	t.Cleanup(w.close)
	w.ioLimit, w.remaining = blocks, blocks
	var bad []string
	policy := make(chan int, 1)
	go func() {
		defer close(policy)
		is, err := uringEngine{}.prepare(w)
		if err != nil {
			w.fail(err)
			return
		}
		u := is.(*uringIssuer)
		defer u.close()
		w.record(observeFunc(func(r IORecord) {
			dir, n, off := r.Dir, r.Bytes, r.Offset
			for i := range u.ring.slots {
				s := &u.ring.slots[i]
				if s.off == off && s.dir == dir {
					if !bytes.Equal(s.buf[:n], blockPattern(off/libaioTestBS)) {
						bad = append(bad, "read at "+strconv.FormatInt(off, 10))
					}
					return
				}
			}
			bad = append(bad, "no slot for the completion at "+strconv.FormatInt(off, 10))
		}), true)
		u.run(w)
		if u.inflight != 0 || u.nFree != depth {
			w.fail(fmt.Errorf("%d I/Os in flight, %d free slots after the run", u.inflight, u.nFree))
		}
		policy <- u.reapMax
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
		if reapMax != 0 {
			t.Errorf("auto reaps %d per call, want every waiting completion (0)", reapMax)
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
