//go:build linux

package osio

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// DropRange writes back the dirty pages of f in [off, off+n) and drops its
// cached pages there, then counts what is still resident: the host's cache
// of a file or device clyde reads through but did not create (a loop
// device's backing file, the block device beneath a FUSE filesystem).
// Nothing is written to f, which may be open read-only: the write-back is
// the kernel's, of pages already dirty (sync_file_range, waiting for it),
// without which posix_fadvise would leave them in memory. What it counts
// is the clean pages still there, where cachestat can tell: a page dirty or
// under write-back now was written after the flush (the filesystem's own
// journal or metadata, in the range of a whole device or image), not data
// left over from the file the read is about to read, whose pages were
// clean when the drop began.
func DropRange(f File, off, n int64) (resident int64, err error) {
	const flush = unix.SYNC_FILE_RANGE_WAIT_BEFORE | unix.SYNC_FILE_RANGE_WRITE | unix.SYNC_FILE_RANGE_WAIT_AFTER
	if err := unix.SyncFileRange(f.sysfd(), off, n, flush); err != nil {
		return -1, fmt.Errorf("sync_file_range: %w", err)
	}
	if err := unix.Fadvise(f.sysfd(), off, n, unix.FADV_DONTNEED); err != nil {
		return -1, fmt.Errorf("posix_fadvise(DONTNEED): %w", err)
	}
	var cs unix.Cachestat_t
	if unix.Cachestat(uint(f.sysfd()), &unix.CachestatRange{Off: uint64(off), Len: uint64(n)}, &cs, 0) == nil {
		clean := int64(cs.Cache) - int64(cs.Dirty) - int64(cs.Writeback)
		return min(max(clean, 0)*int64(os.Getpagesize()), n), nil
	}
	return ResidentRange(f, off, n)
}

// DropRangeMethod is what a result says of DropRange.
const DropRangeMethod = "sync_file_range, posix_fadvise(POSIX_FADV_DONTNEED) over the range, then cachestat counted the clean pages still resident (mincore, every resident page, before Linux 6.5)"

// ResidentRange counts the bytes of f's pages in [off, off+n) that are in
// memory: cachestat(2), which reads the page cache without mapping
// anything, where the kernel has it (6.5 on), else mincore(2) on a
// read-only mapping of the range.
func ResidentRange(f File, off, n int64) (int64, error) {
	var cs unix.Cachestat_t
	err := unix.Cachestat(uint(f.sysfd()), &unix.CachestatRange{Off: uint64(off), Len: uint64(n)}, &cs, 0)
	if err == nil {
		return min(int64(cs.Cache)*int64(os.Getpagesize()), n), nil
	}
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EOPNOTSUPP) {
		return -1, fmt.Errorf("cachestat: %w", err)
	}
	return residentRange(f.sysfd(), off, n)
}
