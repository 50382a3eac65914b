//go:build linux

package cpuclock

import (
	"time"

	"golang.org/x/sys/unix"
)

// ThreadCPU is the CPU time, context switches and page faults of the
// calling OS thread alone (getrusage RUSAGE_THREAD), as fio reads each job's
// with fio_getrusage. The caller must hold its goroutine on the thread
// (runtime.LockOSThread) between two readings, or they are two threads'.
// What the kernel does for the thread elsewhere is not in it: io_uring's
// io-wq workers and SQPOLL thread are threads of their own.
func ThreadCPU() (Usage, error) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return Usage{}, err
	}
	return Usage{
		User: time.Duration(ru.Utime.Nano()),
		Sys:  time.Duration(ru.Stime.Nano()),
		Ctx:  int64(ru.Nvcsw) + int64(ru.Nivcsw),
		Majf: int64(ru.Majflt),
		Minf: int64(ru.Minflt),
	}, nil
}

// ThreadID is the calling OS thread's id (gettid): two ThreadCPU readings
// are one thread's only when it is the same at both.
func ThreadID() int { return unix.Gettid() }
