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

func openHandle(path string, write, direct bool) (fileHandle, error) {
	flags := os.O_RDONLY
	if write {
		flags = os.O_RDWR
	}
	if direct {
		d, err := directFlag()
		if err != nil {
			return fileHandle{}, err
		}
		flags |= d
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		return fileHandle{}, err
	}
	return fileHandle{f: f, fd: int(f.Fd())}, nil
}

func (h fileHandle) pread(b []byte, off int64) (int, error)  { return unix.Pread(h.fd, b, off) }
func (h fileHandle) pwrite(b []byte, off int64) (int, error) { return unix.Pwrite(h.fd, b, off) }
func (h fileHandle) sync() error                             { return unix.Fsync(h.fd) }
func (h fileHandle) close() error                            { return h.f.Close() }
