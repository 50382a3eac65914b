//go:build unix

package blockbench

import "golang.org/x/sys/unix"

// kindOf reads the file type bits of a stat mode.
func kindOf(mode uint32) entryKind {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return kindRegular
	case unix.S_IFBLK:
		return kindDevice
	case unix.S_IFLNK:
		return kindSymlink
	}
	return kindOther
}
