//go:build !unix

package blockbench

import (
	"errors"
	"io"
	"os"
)

// fileHandle is one worker's open target, through os.File where the platform
// has no pread.
type fileHandle struct {
	f *os.File
}

// handleFlags are the open flags of a worker's descriptor.
func handleFlags(write, direct bool) (int, error) {
	if direct {
		if _, err := directFlag(); err != nil {
			return 0, err
		}
	}
	if write {
		return os.O_RDWR, nil
	}
	return os.O_RDONLY, nil
}

// openNoFollow opens an existing target by its resolved path. There is no
// O_NOFOLLOW here; the identity check after every open (target.openWorker)
// catches a target swapped for something else.
func openNoFollow(path string, flag int) (*os.File, error) { return os.OpenFile(path, flag, 0) }

func newFileHandle(f *os.File) fileHandle { return fileHandle{f: f} }

func (h fileHandle) pread(b []byte, off int64) (int, error) {
	n, err := h.f.ReadAt(b, off)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return n, err
}
func (h fileHandle) pwrite(b []byte, off int64) (int, error) { return h.f.WriteAt(b, off) }
func (h fileHandle) sync() error                             { return h.f.Sync() }
func (h fileHandle) close() error                            { return h.f.Close() }
