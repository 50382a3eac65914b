//go:build freebsd || darwin

package blockbench

import (
	"golang.org/x/sys/unix"
)

func spaceOf(st *unix.Statfs_t) fsSpace {
	unit := uint64(st.Bsize)
	return fsSpace{total: uint64(st.Blocks) * unit, free: uint64(st.Bfree) * unit, avail: uint64(max(0, int64(st.Bavail))) * unit}
}
