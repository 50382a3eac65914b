//go:build freebsd || darwin

package pagecache

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// CachedOnly names a memory filesystem (FreeBSD's tmpfs) holding path.
func CachedOnly(path string) (string, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return "", fmt.Errorf("statfs %s: %w", path, err)
	}
	if name := unix.ByteSliceToString(fstypename(&st)); name == "tmpfs" {
		return "tmpfs, which keeps its files in memory", nil
	}
	return "", nil
}

// fstypename is the filesystem's type name as bytes (an int8 array on
// some of x/sys/unix's platforms, a byte array on others).
func fstypename(st *unix.Statfs_t) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&st.Fstypename[0])), len(st.Fstypename))
}
