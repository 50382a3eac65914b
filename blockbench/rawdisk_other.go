//go:build !windows

package blockbench

// isRawDisk: only Windows names disks outside the file system.
func isRawDisk(string) bool { return false }

// rawDiskAligned: block devices elsewhere take cached I/O of any size.
const rawDiskAligned = false
