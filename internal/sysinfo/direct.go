package sysinfo

import (
	"strings"

	"github.com/clydebench/clyde/result"
)

// DirectIsBuffered says why uncached (O_DIRECT) I/O on fs is still served
// by the page cache, or "" when nothing in its type and mount options says
// so. The kernel accepts the open in these cases and falls back without a
// word: tmpfs (O_DIRECT since Linux 6.6) and ramfs keep their files in
// memory, and ext4 in data=journal mode turns direct I/O into buffered I/O,
// since every data block goes through the journal. A figure measured
// there is the cache's, not the drive's.
func DirectIsBuffered(fs result.Filesystem) string {
	switch fs.Type {
	case "tmpfs":
		return "tmpfs, which keeps its files in memory (its O_DIRECT opens bypass nothing)"
	case "ramfs":
		return "ramfs, which keeps its files in memory"
	case "ext4", "ext3":
		if hasMountOption(fs.MountOptions, "data=journal") {
			return fs.Type + " mounted data=journal (" + fs.MountPoint + "), which turns O_DIRECT into buffered I/O: every data block goes through the journal and the page cache"
		}
	}
	return ""
}

func hasMountOption(options, want string) bool {
	for o := range strings.SplitSeq(options, ",") {
		if o == want {
			return true
		}
	}
	return false
}
