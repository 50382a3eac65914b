//go:build unix

package blockbench

import (
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// parentDir is the directory that holds a file clyde creates, opened once.
// The file and its marker are created, reopened, checked and removed
// relative to this descriptor (openat, fstatat, unlinkat, all without
// following a symlink), so a directory renamed or swapped for a symlink
// during the run sends nothing elsewhere.
type parentDir struct {
	path string
	fd   int
}

// openParentDir opens path, which must be a directory and not a symlink.
func openParentDir(path string) (*parentDir, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open directory", Path: path, Err: err}
	}
	return &parentDir{path: path, fd: fd}, nil
}

func (d *parentDir) join(name string) string { return filepath.Join(d.path, name) }

// openFile opens name in d with flag (os.O_* and platform flags such as
// O_DIRECT); a symlink is refused.
func (d *parentDir) openFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	fd, err := unix.Openat(d.fd, name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: d.join(name), Err: err}
	}
	return os.NewFile(uintptr(fd), d.join(name)), nil
}

// create makes name, which must not exist yet.
func (d *parentDir) create(name string, perm os.FileMode) (*os.File, error) {
	return d.openFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
}

// lstat stats name in d, not following a symlink.
func (d *parentDir) lstat(name string) (entryInfo, error) {
	e, err := statAt(d.fd, name)
	if err != nil {
		return e, &fs.PathError{Op: "stat", Path: d.join(name), Err: err}
	}
	return e, nil
}

// remove unlinks name from d.
func (d *parentDir) remove(name string) error {
	if err := unix.Unlinkat(d.fd, name, 0); err != nil {
		return &fs.PathError{Op: "remove", Path: d.join(name), Err: err}
	}
	return nil
}

// sync makes the directory's entries durable, so a marker written before a
// crash is found after it.
func (d *parentDir) sync() error { return unix.Fsync(d.fd) }

func (d *parentDir) close() error { return unix.Close(d.fd) }
