//go:build linux

package pagecache

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/admit"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/internal/sysinfo"
)

// Filesystem magic numbers (linux/magic.h) of those that serve file data
// from memory whatever the open flags.
const (
	tmpfsMagic = 0x01021994
	ramfsMagic = 0x858458f6
	fuseMagic  = 0x65735546
	ext4Magic  = 0xef53 // ext2, ext3 and ext4
)

// CachedOnly names what serves an uncached run on path (a file, the
// directory a new one goes in, or a block device) from a page cache
// anyway, "" when nothing does: the filesystem holding a file
// (filesystemCached), or a loop device the data ends in on the way down
// (loopCached), whose backing file the host caches.
func CachedOnly(path string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err == nil && st.Mode&unix.S_IFMT == unix.S_IFBLK {
		return loopCached(path) // a device node's own filesystem is devtmpfs: not where its data goes
	}
	if what, err := filesystemCached(path); what != "" || err != nil {
		return what, err
	}
	return loopCached(path) // through the filesystem's device
}

// loopCached names the first loop device under path (admit.LoopsUnder)
// whose reads of its backing are served by the host's page cache: one
// without direct I/O (the kernel's default; losetup --direct-io=on turns
// it on), which reads its backing file or device buffered, or one over a
// file on a filesystem that is itself cached (filesystemCached: an image
// on tmpfs). CrystalDiskMark's profile on ext4 in such an image printed
// 8 GB/s: the host's memory.
func loopCached(path string) (string, error) {
	loops, err := admit.LoopsUnder(path)
	if err != nil {
		return "", err
	}
	for _, l := range loops {
		backing := "backing device " + l.Backing
		if l.File {
			backing = "backing file " + l.Backing
		}
		if !l.DirectIO {
			return fmt.Sprintf("%s, a loop device that reads its %s through the host's page cache (/sys/block/%s/loop/dio is 0; losetup --direct-io=on makes it bypass the cache)",
				l.Device, backing, filepath.Base(l.Device)), nil
		}
		if l.File {
			if what, _ := filesystemCached(l.Backing); what != "" {
				return fmt.Sprintf("%s, a loop device over the %s, which is on %s", l.Device, backing, what), nil
			}
		}
	}
	return "", nil
}

// filesystemCached names the filesystem holding path when an uncached run
// there would still measure the page cache: tmpfs and ramfs keep their
// files in it (tmpfs accepts O_DIRECT since Linux 6.6 and bypasses
// nothing), and a FUSE filesystem's daemon does the I/O through the cache
// of whatever it writes to (ntfs-3g: the block device's), and ext4 mounted
// data=journal turns direct I/O into buffered I/O. "" for the others.
func filesystemCached(path string) (string, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return "", fmt.Errorf("statfs %s: %w", path, err)
	}
	switch uint32(st.Type) {
	case tmpfsMagic:
		return inMemory(st.Type) + " (its O_DIRECT opens bypass nothing)", nil
	case ramfsMagic:
		return inMemory(st.Type), nil
	case fuseMagic:
		return "a FUSE filesystem, whose daemon does the I/O through the page cache of what it writes to (ntfs-3g: the disk's)", nil
	case ext4Magic:
		// data=journal is a mount option: the mount table tells.
		fs, err := sysinfo.FilesystemOf(path)
		if err != nil {
			return "", err
		}
		if why := sysinfo.DirectIsBuffered(fs); why != "" {
			return why, nil
		}
		// So does ext4's per-file data journaling (chattr +j), on the
		// file, or on the directory a new file inherits it from.
		if journaledData(path) {
			return "a file with ext4's per-file data journaling (chattr +j, on it or its directory), which turns O_DIRECT into buffered I/O", nil
		}
	}
	return "", nil
}

// inMemory names a filesystem whose files are memory (statfs's f_type):
// tmpfs and ramfs, whose pages no drop can free.
func inMemory[T int32 | int64 | uint32](magic T) string {
	switch uint32(magic) {
	case tmpfsMagic:
		return "tmpfs, which keeps its files in memory"
	case ramfsMagic:
		return "ramfs, which keeps its files in memory"
	}
	return ""
}

// fsJournalDataFL is ext4's FS_JOURNAL_DATA_FL (chattr +j).
const fsJournalDataFL = 0x00004000

// journaledData is whether path, or its directory when path does not
// exist yet, has ext4's data journaling flag. Both are opened by the path
// rule (internal/safepath): without blocking, a regular file or a
// directory only.
func journaledData(path string) bool {
	for _, p := range []string{path, filepath.Dir(path)} {
		f, _, err := safepath.Open(p, osio.ReadOnly, safepath.Regular|safepath.Directory)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return false
		}
		flags, err := unix.IoctlGetUint32(f.Fd(), unix.FS_IOC_GETFLAGS)
		f.Close()
		return err == nil && flags&fsJournalDataFL != 0
	}
	return false
}
