//go:build freebsd || darwin

package blockbench

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// fstypename is the filesystem's type name as bytes (an int8 array on
// some of x/sys/unix's platforms, a byte array on others).
func fstypename(st *unix.Statfs_t) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&st.Fstypename[0])), len(st.Fstypename))
}
