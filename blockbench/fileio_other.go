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

func openHandle(path string, write, direct bool) (fileHandle, error) {
	if direct {
		if _, err := directFlag(); err != nil {
			return fileHandle{}, err
		}
	}
	flags := os.O_RDONLY
	if write {
		flags = os.O_RDWR
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		return fileHandle{}, err
	}
	return fileHandle{f: f}, nil
}

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
