package blockbench

// fileID identifies a file apart from its name: the device and inode
// numbers (on Windows the volume serial number and file index), and its
// birth time where the platform records one, so that an inode number a
// filesystem hands out again to a later file does not pass for the file
// clyde created.
type fileID struct {
	Dev   uint64
	Ino   uint64
	Birth int64 // ns since the epoch; 0 when unknown
}

// same is true when a and b are one file. A birth time counts only when both
// sides know it.
func (a fileID) same(b fileID) bool {
	return a.Dev == b.Dev && a.sameInode(b)
}

// sameInode compares all but the device number, which differs between the
// hosts that mount one NFS export: the inode number and birth time are the
// server's.
func (a fileID) sameInode(b fileID) bool {
	return a.Ino == b.Ino && (a.Birth == 0 || b.Birth == 0 || a.Birth == b.Birth)
}

// entryKind is what a directory entry is, as far as the target rules care.
type entryKind int

const (
	kindOther entryKind = iota
	kindRegular
	kindDevice // a block device
	kindSymlink
)

// entryInfo is what one stat of a name or a descriptor tells.
type entryInfo struct {
	id   fileID
	kind entryKind
	size int64
}
