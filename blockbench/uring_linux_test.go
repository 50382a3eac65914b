//go:build linux

package blockbench

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// TestURingWaitIsBounded checks that a wait for a completion that never
// comes returns: the loop waits through RawSyscall, which holds the Go
// processor, so an unbounded wait on a stalled device would hold it forever.
func TestURingWaitIsBounded(t *testing.T) {
	if err := uringAvailable(); err != nil {
		t.Skipf("io_uring not available here: %v", err)
	}
	r, err := setupRing(4)
	if err != nil {
		t.Fatal(err)
	}
	if r.features&uringFeatExtArg == 0 {
		r.close()
		t.Skip("kernel without IORING_FEAT_EXT_ARG (5.11): waits go through Syscall, unbounded, as fio's do")
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
