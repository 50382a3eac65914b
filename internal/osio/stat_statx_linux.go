//go:build linux && !amd64 && !arm64

package osio

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// StatBuf is what statx(2) fills: the one stat call every Linux
// architecture has with the same layout.
type StatBuf = unix.Statx_t

// StatSmall follows symlinks, as bonnie++'s stat() does, raw; it returns
// the size.
func (d Dir) StatSmall(name []byte, st *StatBuf) (int64, error) {
	_, _, e := unix.RawSyscall6(unix.SYS_STATX, uintptr(d.sysfd()), namePtr(name), 0, unix.STATX_BASIC_STATS, uintptr(unsafe.Pointer(st)), 0)
	if e != 0 {
		return 0, errnoErr(e)
	}
	return int64(st.Size), nil
}
