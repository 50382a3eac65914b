//go:build linux && (amd64 || arm64)

package fsbench

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// statBuf is what stat(2) fills.
type statBuf = unix.Stat_t

// stat follows symlinks, as bonnie++'s stat() does, with the same syscall
// glibc's stat() makes here (newfstatat).
func (d dirHandle) stat(name []byte, st *statBuf) (int64, error) {
	_, _, e := unix.RawSyscall6(unix.SYS_NEWFSTATAT, uintptr(d.fd), namePtr(name), uintptr(unsafe.Pointer(st)), 0, 0, 0)
	if e != 0 {
		return 0, errnoErr(e)
	}
	return st.Size, nil
}
