package preflight

// FS is the size of a filesystem and the room left on it, as statfs (or
// GetDiskFreeSpaceEx) reports it: the one look at free space that fs, copy
// and block make, before a run and, for block's private directory, through
// its descriptor during one.
type FS struct {
	// TotalBytes is the filesystem's size.
	TotalBytes uint64
	// FreeBytes is what is free, the blocks reserved for the administrator
	// included (f_bfree); AvailBytes is what an unprivileged caller may
	// still use (f_bavail), what a run is held to. Where the platform
	// gives only the caller's figure (Windows), FreeBytes is AvailBytes, so
	// UsedBytes counts a reserve or a quota as used.
	FreeBytes, AvailBytes uint64
	// FreeInodes and TotalInodes count files that can still be created;
	// they mean something only when InodesKnown.
	FreeInodes, TotalInodes uint64
	// InodesKnown is false where the filesystem has no fixed inode table
	// (btrfs reports 0 total inodes) or the platform does not say, so file
	// creation must not be refused on inode counts.
	InodesKnown bool
}

// UsedBytes is what is in use: the size less what is free.
func (s FS) UsedBytes() uint64 { return s.TotalBytes - min(s.FreeBytes, s.TotalBytes) }
