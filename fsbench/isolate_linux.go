//go:build linux

package fsbench

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// threadsIsolated says lanes run with private descriptor tables.
const threadsIsolated = true

// isolateThread pins the calling goroutine to its OS thread for good and gives
// that thread a descriptor table of its own (unshare CLONE_FILES). With a
// shared table, which every Go process has, the kernel reference-counts each
// descriptor on every call and takes the file-position lock on read(2) and
// write(2); with a private one it takes the same fast path as single-threaded
// bonnie++, so clyde's figures are the filesystem's, not the thread model's.
// The goroutine never unlocks, so the thread ends with it and the kernel
// closes anything it left open. If unshare fails, the lane just runs shared.
func isolateThread() {
	runtime.LockOSThread()
	_ = unix.Unshare(unix.CLONE_FILES)
}
