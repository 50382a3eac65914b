//go:build freebsd || darwin

package blockbench

import (
	"fmt"

	"golang.org/x/sys/unix"
)

func spaceOf(st *unix.Statfs_t) fsSpace {
	unit := uint64(st.Bsize)
	return fsSpace{total: uint64(st.Blocks) * unit, free: uint64(st.Bfree) * unit, avail: uint64(max(0, int64(st.Bavail))) * unit}
}

// cachedOnly names a memory filesystem (FreeBSD's tmpfs) holding path.
func cachedOnly(path string) (string, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return "", fmt.Errorf("statfs %s: %w", path, err)
	}
	if name := unix.ByteSliceToString(fstypename(&st)); name == "tmpfs" {
		return "tmpfs, which keeps its files in memory", nil
	}
	return "", nil
}
