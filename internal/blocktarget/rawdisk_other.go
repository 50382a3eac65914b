//go:build !windows

package blocktarget

// IsRawDisk says whether a target names a raw disk outside the file
// system: only Windows names disks so.
func IsRawDisk(string) bool { return false }

// rawDiskAligned: block devices elsewhere take cached I/O of any size.
const rawDiskAligned = false
