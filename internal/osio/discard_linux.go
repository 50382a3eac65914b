//go:build linux

package osio

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// CanDiscard says whether Discard can work here.
const CanDiscard = true

// Discard tells a block device that n bytes at off hold no data
// (BLKDISCARD with a [start, length] range), as fio 3.33's os_trim does on
// Linux. A regular file refuses the ioctl (ENOTTY), as it does fio's.
func Discard(f File, off, n int64) error {
	r := [2]uint64{uint64(off), uint64(n)}
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(f.sysfd()), unix.BLKDISCARD, uintptr(unsafe.Pointer(&r)))
	if errno != 0 {
		return errno
	}
	return nil
}
