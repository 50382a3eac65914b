//go:build linux

package ioengine

import (
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

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
)

// TestURingWaitIsBounded checks that a wait for a completion that never
// comes returns: the loop waits through RawSyscall, which holds the Go
// processor, so an unbounded wait on a stalled device would hold it forever.
func TestURingWaitIsBounded(t *testing.T) {
	if err := uringProbe(); err != nil {
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
	if err := uringProbe(); err != nil {
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
