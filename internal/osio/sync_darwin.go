//go:build darwin

package osio

import (
	"errors"

	"golang.org/x/sys/unix"
)

// SyncFull writes the file back and flushes the drive's write cache:
// fsync(2) on macOS stops at the drive, F_FULLFSYNC goes through it (what
// bonnie++ -b means by no write buffering). A filesystem that refuses
// F_FULLFSYNC (some network and FAT volumes) gets fsync(2) instead, and
// full is false so the result can say the drive's cache was not flushed.
func (f File) SyncFull() (full bool, err error) {
	_, err = unix.FcntlInt(uintptr(f.sysfd()), unix.F_FULLFSYNC, 0)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.ENOTTY) || errors.Is(err, unix.EINVAL) {
		return false, unix.Fsync(f.sysfd())
	}
	return false, err
}
