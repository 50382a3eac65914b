//go:build linux

package blockbench

import (
	"golang.org/x/sys/unix"
)

func spaceOf(st *unix.Statfs_t) fsSpace {
	unit := uint64(st.Frsize)
	if unit == 0 {
		unit = uint64(st.Bsize)
	}
	return fsSpace{total: st.Blocks * unit, free: st.Bfree * unit, avail: st.Bavail * unit}
}
