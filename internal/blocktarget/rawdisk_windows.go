//go:build windows

package blocktarget

import "github.com/clydebench/clyde/internal/osio"

// IsRawDisk says whether a target names a Windows raw disk
// (\\.\PhysicalDriveN), which has no file system entry to resolve.
func IsRawDisk(name string) bool { return osio.IsPhysicalDrive(name) }

// rawDiskAligned: Windows refuses any raw-disk read or write that is not
// whole sectors, cached or not, so the sector rule holds for every job on
// one.
const rawDiskAligned = true
