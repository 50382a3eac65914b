//go:build linux

package cpuclock

import "golang.org/x/sys/unix"

// ThreadCPU is the CPU time, context switches and page faults of the
// calling OS thread alone (getrusage RUSAGE_THREAD), as fio reads each job's
// with fio_getrusage. The caller must hold its goroutine on the thread
// (runtime.LockOSThread) between two readings, or they are two threads'.
// What the kernel does for the thread elsewhere is not in it: io_uring's
// io-wq workers and SQPOLL thread are threads of their own.
func ThreadCPU() (Usage, error) { return rusage(unix.RUSAGE_THREAD) }

// ThreadID is the calling OS thread's id (gettid): two ThreadCPU readings
// are one thread's only when it is the same at both.
func ThreadID() int { return unix.Gettid() }
