//go:build linux

package osio

import (
	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/result"
)

// EvictDevice drops the clean cached pages of the block device at path and
// counts with mincore what is still resident. A FUSE filesystem on a block
// device (ntfs-3g) reads and writes the device through the device's own
// page cache, so dropping a file's pages leaves its data in memory there:
// a cold read of such a file needs this too. The device is opened
// read-only and nothing is written; Cold is set when what is still
// resident is under 1% of wantBytes (the data about to be read).
func EvictDevice(path string, wantBytes int64) result.CacheState {
	st := result.CacheState{ResidentBytes: -1}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		st.Error = "open " + path + ": " + err.Error()
		return st
	}
	defer unix.Close(fd)
	size, err := unix.Seek(fd, 0, 2)
	if err != nil || size <= 0 {
		st.Error = "size of " + path + ": not a block device with a size"
		return st
	}
	st.FileBytes = size
	if err := unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED); err != nil {
		st.Error = "posix_fadvise(DONTNEED) " + path + ": " + err.Error()
		return st
	}
	st.Evicted = true
	resident, err := residentBytes(fd, size)
	if err != nil {
		st.Error = "mincore " + path + ": " + err.Error()
		return st
	}
	st.ResidentBytes = resident
	st.Cold = resident*100 < wantBytes
	return st
}
