//go:build linux

package osio

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// IsolateThread pins the calling goroutine to its OS thread for good and gives
// that thread a descriptor table of its own (unshare CLONE_FILES). With a
// shared table, which every Go process has, the kernel reference-counts each
// descriptor on every call and takes the file-position lock on read(2) and
// write(2); with a private one it takes the same fast path as a
// single-threaded C benchmark. The goroutine never unlocks, so the thread
// ends with it and the kernel closes anything it left open. It reports
// whether the thread got its own table; when not, the caller must close its
// descriptors itself.
//
// The process's main thread is never given one: Go cannot end it, so it
// would keep a private copy of every descriptor open at the time (a pipe's
// write end, a file the program closes later) for as long as the process
// lives.
func IsolateThread() bool {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		return false
	}
	return unix.Unshare(unix.CLONE_FILES) == nil
}
