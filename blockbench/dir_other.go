//go:build !unix

package blockbench

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// errIsSymlink is a name that was expected to be a file and is a symlink.
var errIsSymlink = errors.New("is a symlink")

// parentDir is the directory that holds a file clyde creates, opened once.
// Here it is an os.Root: on Windows every name is opened relative to the
// directory's handle (NtCreateFile with a root directory), and a name that
// would leave the directory, through ".." or a symlink, is refused. That is
// the closest Windows has to openat with O_NOFOLLOW.
type parentDir struct {
	path string
	root *os.Root
}

func openParentDir(path string) (*parentDir, error) {
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	return &parentDir{path: path, root: r}, nil
}

func (d *parentDir) join(name string) string { return filepath.Join(d.path, name) }

func (d *parentDir) openFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	fi, err := d.root.Lstat(name)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "open", Path: d.join(name), Err: errIsSymlink}
	}
	return d.root.OpenFile(name, flag, perm)
}

func (d *parentDir) create(name string, perm os.FileMode) (*os.File, error) {
	return d.root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
}

// lstat reads the identity through a handle: Lstat's FileInfo carries no
// file index here.
func (d *parentDir) lstat(name string) (entryInfo, error) {
	fi, err := d.root.Lstat(name)
	if err != nil {
		return entryInfo{}, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return entryInfo{kind: kindSymlink}, nil
	}
	f, err := d.root.Open(name)
	if err != nil {
		return entryInfo{}, err
	}
	defer f.Close()
	e, err := identify(f)
	if err == nil && !fi.Mode().IsRegular() {
		e.kind = kindOther
	}
	return e, err
}

func (d *parentDir) remove(name string) error { return d.root.Remove(name) }

// sync: Windows cannot flush a directory; its entries are journalled by NTFS.
func (d *parentDir) sync() error { return nil }

func (d *parentDir) close() error { return d.root.Close() }
