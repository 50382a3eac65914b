//go:build unix

package blockbench

import (
	"os"

	"golang.org/x/sys/unix"
)

// fileHandle is one worker's open target. The I/O loop calls pread/pwrite on
// the raw descriptor: os.File's ReadAt adds a lock and a retry loop per call.
type fileHandle struct {
	f  *os.File
	fd int
}

// handleFlags are the open flags of a worker's descriptor.
func handleFlags(write, direct bool) (int, error) {
	flags := os.O_RDONLY
	if write {
		flags = os.O_RDWR
	}
	if direct {
		d, err := directFlag()
		if err != nil {
			return 0, err
		}
		flags |= d
	}
	return flags, nil
}

// openNoFollow opens an existing target by its resolved path; the last
// component is never a symlink there, so one that appears is refused.
func openNoFollow(path string, flag int) (*os.File, error) {
	return os.OpenFile(path, flag|unix.O_NOFOLLOW, 0)
}

func newFileHandle(f *os.File) fileHandle { return fileHandle{f: f, fd: int(f.Fd())} }

func (h fileHandle) pread(b []byte, off int64) (int, error)  { return unix.Pread(h.fd, b, off) }
func (h fileHandle) pwrite(b []byte, off int64) (int, error) { return unix.Pwrite(h.fd, b, off) }
func (h fileHandle) sync() error                             { return unix.Fsync(h.fd) }
func (h fileHandle) close() error                            { return h.f.Close() }
