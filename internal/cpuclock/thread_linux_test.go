//go:build linux

package cpuclock

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
)

// TestThreadCPUIsTheThreadsOwn burns CPU on one thread while another waits
// for it: the waiting thread's reading must not grow by what the busy one
// used, which a process-wide reading (RUSAGE_SELF) would. The busy loop ends
// on its own thread's CPU, not on the clock.
func TestThreadCPUIsTheThreadsOwn(t *testing.T) {
	const spin = 50 * time.Millisecond
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, err := ThreadCPU()
	if err != nil {
		t.Fatal(err)
	}
	busy := make(chan Usage)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		from, _ := ThreadCPU()
		x := 0
		for {
			now, _ := ThreadCPU()
			if d := now.Sub(from); d.Total() >= spin {
				busy <- d
				return
			}
			for range 100_000 {
				x++
			}
		}
	}()
	used := <-busy
	after, err := ThreadCPU()
	if err != nil {
		t.Fatal(err)
	}
	waited := after.Sub(before)
	if used.Total() < spin {
		t.Fatalf("the busy thread used %v, want at least %v", used.Total(), spin)
	}
	if waited.Total() >= used.Total() {
		t.Fatalf("the waiting thread used %v while the busy one used %v: the reading is not the thread's own", waited.Total(), used.Total())
	}
	// Waiting on the channel put the thread to sleep at least once.
	if waited.Ctx < 1 {
		t.Fatalf("the waiting thread made %d context switches, want at least the one of its wait", waited.Ctx)
	}
}

// ctx is fio's: voluntary and involuntary switches. The kernel's own counts
// of the thread (/proc/thread-self/status) bracket the reading once the
// thread has been switched out against its will at least once, which more
// busy threads than CPUs make happen.
func TestThreadCPUCountsBothKindsOfSwitch(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if _, _, err := switchesOfThisThread(); err != nil {
		clydetest.Skipf(t, "no /proc/thread-self/status: %v", err)
	}
	_, invol, _ := switchesOfThisThread()
	if invol == 0 {
		n := runtime.NumCPU() + 1
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n + 1))
		// spinners on every CPU, so that this thread is switched out
		var stop atomic.Bool
		defer stop.Store(true)
		for range n {
			go func() {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				for !stop.Load() {
				}
			}()
		}
		for start := time.Now(); invol == 0; {
			if time.Since(start) > 10*time.Second {
				clydetest.Skip(t, "this thread was never switched out against its will")
			}
			_, invol, _ = switchesOfThisThread()
		}
	}
	volA, involA, _ := switchesOfThisThread()
	u, err := ThreadCPU()
	if err != nil {
		t.Fatal(err)
	}
	volB, involB, _ := switchesOfThisThread()
	if u.Ctx < volA+involA || u.Ctx > volB+involB {
		t.Fatalf("ctx %d; the kernel counted %d+%d switches before the reading and %d+%d after", u.Ctx, volA, involA, volB, involB)
	}
}

// switchesOfThisThread reads the calling thread's voluntary and involuntary
// context switches from /proc.
func switchesOfThisThread() (vol, invol int64, err error) {
	b, err := os.ReadFile("/proc/thread-self/status")
	if err != nil {
		return 0, 0, err
	}
	found := 0
	for _, line := range strings.Split(string(b), "\n") {
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, perr := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		switch key {
		case "voluntary_ctxt_switches":
			vol, found, err = n, found+1, perr
		case "nonvoluntary_ctxt_switches":
			invol, found, err = n, found+1, perr
		}
		if err != nil {
			return 0, 0, err
		}
	}
	if found != 2 {
		return 0, 0, fmt.Errorf("no context switch counts in /proc/thread-self/status")
	}
	return vol, invol, nil
}
