//go:build windows

package sysinfo

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// Space reports the room left on the volume holding path, so a run can be
// refused before it fills the disk. Windows has no inode limit to report.
func Space(path string) (SpaceInfo, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return SpaceInfo{}, fmt.Errorf("free space of %s: %w", path, err)
	}
	var avail, total, free uint64
	if err := windows.GetDiskFreeSpaceEx(p, &avail, &total, &free); err != nil {
		return SpaceInfo{}, fmt.Errorf("free space of %s: %w", path, err)
	}
	return SpaceInfo{FreeBytes: avail, TotalBytes: total}, nil
}
