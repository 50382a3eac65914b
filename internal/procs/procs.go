// Package procs gives each blocking worker of a measurement its own Go
// processor (a P) while it runs.
//
// A worker that blocks in a system call keeps its P marked as in the call.
// When more workers block than there are Ps, sysmon takes Ps away from
// blocked workers to run the others, and a worker coming back from its call
// finds no P, parks its thread and waits to be handed one: thread switches on
// nearly every I/O that fio, a C program, never pays. Measured on a 2-CPU
// virtio disk, four psync workers doing 4 KiB O_DIRECT random reads reached
// 0.81x fio's IOPS with GOMAXPROCS=2 and 1.0x with GOMAXPROCS=5 (four
// workers and one P for the rest of the program). Ps are not CPUs: a worker
// blocked in the kernel uses none, and workers that are all busy on the CPU
// (tmpfs) share the CPUs through the kernel's scheduler, as fio's job
// processes and bonnie++'s seek threads do.
package procs

import (
	"runtime"
	"sync"
)

// limit is the most Ps asked for: the runtime's own cap on 64-bit systems.
const limit = 1024

var (
	mu       sync.Mutex
	reserved int // workers of the measurements running now
	saved    int // GOMAXPROCS before the first of them began
)

// Reserve raises GOMAXPROCS so that that many blocking workers, together with
// those of any other measurement running in this process, each have a P and
// one more is left for the rest of the program; it never lowers it. The
// returned function gives them back; once the last measurement has given its
// back, GOMAXPROCS is what it was. (Having been set, it no longer follows
// changes to the machine's CPUs or cgroup quota, which matters only to a
// long-lived program that embeds the engines.)
func Reserve(workers int) (release func()) {
	if workers < 1 {
		return func() {}
	}
	mu.Lock()
	defer mu.Unlock()
	if reserved == 0 {
		saved = runtime.GOMAXPROCS(0)
	}
	reserved += workers
	apply()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			reserved -= workers
			if reserved > 0 {
				apply()
				return
			}
			runtime.GOMAXPROCS(saved)
		})
	}
}

// apply sets GOMAXPROCS for what is reserved now; mu is held.
func apply() {
	want := min(max(saved, reserved+1), limit)
	if runtime.GOMAXPROCS(0) != want {
		runtime.GOMAXPROCS(want)
	}
}
