//go:build windows

package preflight

import (
	"fmt"

	"golang.org/x/sys/windows"

	"github.com/clydebench/clyde/internal/osio"
)

// Stat is the room left on the volume holding path. Windows has no inode
// limit to report, and gives the caller's free space (a quota applied),
// which stands for the free space too.
func Stat(path string) (FS, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return FS{}, fmt.Errorf("free space of %s: %w", path, err)
	}
	var avail, total, free uint64
	if err := windows.GetDiskFreeSpaceEx(p, &avail, &total, &free); err != nil {
		return FS{}, fmt.Errorf("free space of %s: %w", path, err)
	}
	return FS{TotalBytes: total, FreeBytes: avail, AvailBytes: avail}, nil
}

// StatDir is Stat of d's path: no call here asks through a handle.
func StatDir(d osio.Dir) (FS, error) { return Stat(d.Path()) }
