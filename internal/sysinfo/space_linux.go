//go:build linux

package sysinfo

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Space reports the room left on the filesystem holding path, so a run can
// be refused before it fills the disk.
func Space(path string) (SpaceInfo, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return SpaceInfo{}, fmt.Errorf("statfs %s: %w", path, err)
	}
	// Block counts are in fragment-size units; f_frsize is 0 only on
	// kernels too old to report it, where f_bsize is the unit.
	unit := uint64(st.Frsize)
	if unit == 0 {
		unit = uint64(st.Bsize)
	}
	return SpaceInfo{
		FreeBytes:   uint64(st.Bavail) * unit,
		TotalBytes:  uint64(st.Blocks) * unit,
		FreeInodes:  uint64(st.Ffree),
		TotalInodes: uint64(st.Files),
		InodesKnown: st.Files != 0,
	}, nil
}
