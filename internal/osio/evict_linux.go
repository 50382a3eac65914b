//go:build linux

package osio

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/result"
)

// EvictSupported says whether EvictPageCache can drop a file's cached pages
// here; without it, only a file over twice the RAM reads cold.
const EvictSupported = true

// EvictPageCache writes the file's dirty pages back, asks the kernel to drop
// its cached pages, and then counts with mincore how many are still resident,
// so a read phase can say whether it really read from the device. tmpfs and
// some FUSE filesystems keep their pages: the result says so rather than
// claiming cold reads.
func EvictPageCache(f File, fileBytes int64) result.CacheState {
	st := result.CacheState{FileBytes: fileBytes, ResidentBytes: -1, Method: evictMethod}
	if err := unix.Fsync(f.sysfd()); err != nil {
		st.Error = "fsync: " + err.Error()
		return st
	}
	if err := unix.Fadvise(f.sysfd(), 0, 0, unix.FADV_DONTNEED); err != nil {
		st.Error = "posix_fadvise(DONTNEED): " + err.Error()
		return st
	}
	st.Evicted = true
	resident, err := residentBytes(f.sysfd(), fileBytes)
	if err != nil {
		st.Error = "mincore: " + err.Error()
		return st
	}
	st.ResidentBytes = resident
	st.Cold = resident*100 < fileBytes
	return st
}

// evictMethod is what the result says of the eviction.
const evictMethod = "fsync, posix_fadvise(POSIX_FADV_DONTNEED), then mincore counted the resident pages"

// EvictFile is EvictPageCache for the file name in d, opened read-only for it.
func EvictFile(d Dir, name []byte, fileBytes int64) result.CacheState {
	f, err := d.Open(name, ReadOnly, 0)
	if err != nil {
		return result.CacheState{FileBytes: fileBytes, ResidentBytes: -1, Method: evictMethod, Error: err.Error()}
	}
	defer f.Close()
	return EvictPageCache(f, fileBytes)
}

// residentBytes maps the file in windows and asks mincore which pages are in memory.
func residentBytes(fd int, size int64) (int64, error) { return residentRange(fd, 0, size) }

// residentRange counts with mincore the bytes of [off, off+n) of the file
// at fd in memory, mapping it a window at a time.
func residentRange(fd int, off, n int64) (int64, error) {
	const window = 1 << 30
	page := int64(os.Getpagesize())
	vec := make([]byte, window/page)
	start := off &^ (page - 1) // a mapping starts on a page
	end := off + n
	var resident int64
	for at := start; at < end; at += window {
		size := min(window, end-at)
		m, err := unix.Mmap(fd, at, int(size), unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			return 0, fmt.Errorf("mmap at %d: %w", at, err)
		}
		pages := (size + page - 1) / page
		err = mincore(m, vec[:pages])
		if err == nil {
			for _, v := range vec[:pages] {
				if v&1 != 0 {
					resident += page
				}
			}
		}
		if uerr := unix.Munmap(m); err == nil {
			err = uerr
		}
		if err != nil {
			return 0, err
		}
	}
	return min(resident, n), nil
}

// mincore is mincore(2); x/sys/unix does not wrap it.
func mincore(b []byte, vec []byte) error {
	_, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0])))
	if e != 0 {
		return e
	}
	return nil
}
