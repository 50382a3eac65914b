//go:build linux

package cpuclock

import (
	"runtime"
	"testing"
	"time"
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
