//go:build darwin || freebsd

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
	// FreeBSD's f_bavail goes negative when root has eaten into the
	// reserve; for the caller that is no space at all.
	avail := max(int64(st.Bavail), 0)
	ffree := max(int64(st.Ffree), 0)
	return SpaceInfo{
		FreeBytes:   uint64(avail) * uint64(st.Bsize),
		TotalBytes:  uint64(st.Blocks) * uint64(st.Bsize),
		FreeInodes:  uint64(ffree),
		TotalInodes: uint64(st.Files),
		InodesKnown: st.Files != 0,
	}, nil
}
