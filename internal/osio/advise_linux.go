//go:build linux

package osio

import "golang.org/x/sys/unix"

// AdviseAccess tells the kernel how f will be read (fio's fadvise_hint):
// at random, which turns readahead off, or in sequence, which widens it.
func AdviseAccess(f File, random bool) error {
	advice := unix.FADV_SEQUENTIAL
	if random {
		advice = unix.FADV_RANDOM
	}
	return unix.Fadvise(f.sysfd(), 0, 0, advice)
}

// CanAdviseAccess says whether AdviseAccess works here.
const CanAdviseAccess = true

// DropCache asks the kernel to drop f's clean cached pages
// (posix_fadvise DONTNEED), as fio's invalidate does when it reopens a file.
func DropCache(f File) error { return unix.Fadvise(f.sysfd(), 0, 0, unix.FADV_DONTNEED) }
