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
func IsolateThread() bool {
	runtime.LockOSThread()
	return unix.Unshare(unix.CLONE_FILES) == nil
}
