//go:build linux && (amd64 || arm64)

package osio

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// StatBuf is what stat(2) fills.
type StatBuf = unix.Stat_t

// StatSmall follows symlinks, as bonnie++'s stat() does, with the same
// syscall glibc's stat() makes here (newfstatat), raw; it returns the size.
func (d Dir) StatSmall(name []byte, st *StatBuf) (int64, error) {
	_, _, e := unix.RawSyscall6(unix.SYS_NEWFSTATAT, uintptr(d.sysfd()), namePtr(name), uintptr(unsafe.Pointer(st)), 0, 0, 0)
	if e != 0 {
		return 0, errnoErr(e)
	}
	return st.Size, nil
}
