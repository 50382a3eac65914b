//go:build windows

package runlock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockRange is where the locked byte sits: 2^62, far past the holder's JSON
// at the start of the file. Windows locks are mandatory, so a lock on the
// first bytes would stop a second clyde from reading who holds it.
// LockFileEx may lock a range beyond the end of the file.
func lockRange() *windows.Overlapped { return &windows.Overlapped{OffsetHigh: 1 << 30} }

func tryLock(f *os.File) error {
	err := windows.LockFileEx(windows.Handle(f.Fd()),
		windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, lockRange())
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return errWouldBlock
	}
	return err
}

func unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, lockRange())
}
