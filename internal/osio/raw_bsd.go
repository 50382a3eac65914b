//go:build unix && !linux

package osio

import (
	"os"

	"golang.org/x/sys/unix"
)

// On the BSDs and macOS the file tests' calls go through x/sys/unix's *at
// functions: relative to the directory's descriptor like Linux's, but each
// converts its name to a string (an allocation per operation).

// CreateSmall creates a small file of the file tests, exclusively, for writing.
func (d Dir) CreateSmall(name []byte) (File, error) {
	fd, err := unix.Openat(d.sysfd(), nameString(name), unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	return newFile(fd), err
}

// OpenSmall opens a small file for reading, following a symlink as
// bonnie++'s open() does (the links all point inside the test directory).
func (d Dir) OpenSmall(name []byte) (File, error) {
	fd, err := unix.Openat(d.sysfd(), nameString(name), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	return newFile(fd), err
}

// OpenSubdirSmall opens a test subdirectory; a symlink is refused.
func (d Dir) OpenSubdirSmall(name []byte) (Dir, error) { return d.OpenSubdir(name) }

// MkdirSmall is mkdirat, mode 0700.
func (d Dir) MkdirSmall(name []byte) error { return unix.Mkdirat(d.sysfd(), nameString(name), 0o700) }

// UnlinkSmall is unlinkat of a file.
func (d Dir) UnlinkSmall(name []byte) error { return unix.Unlinkat(d.sysfd(), nameString(name), 0) }

// RmdirSmall is unlinkat of an empty directory.
func (d Dir) RmdirSmall(name []byte) error {
	return unix.Unlinkat(d.sysfd(), nameString(name), unix.AT_REMOVEDIR)
}

// LinkSmall makes a hard link within d.
func (d Dir) LinkSmall(oldName, newName []byte) error {
	return unix.Linkat(d.sysfd(), nameString(oldName), d.sysfd(), nameString(newName), 0)
}

// SymlinkSmall makes a symlink within d.
func (d Dir) SymlinkSmall(target, newName []byte) error {
	return unix.Symlinkat(nameString(target), d.sysfd(), nameString(newName))
}

// SyncFSMethod is what SyncFS does, for results.
const SyncFSMethod = "sync(2)"

// SyncFS is bonnie++'s sync(): these systems have no per-filesystem syncfs.
func (d Dir) SyncFS() error { return unix.Sync() }

// StatBuf is what stat(2) fills.
type StatBuf = unix.Stat_t

// StatSmall follows symlinks, as bonnie++'s stat() does; it returns the size.
func (d Dir) StatSmall(name []byte, st *StatBuf) (int64, error) {
	if err := unix.Fstatat(d.sysfd(), nameString(name), st, 0); err != nil {
		return 0, err
	}
	return st.Size, nil
}

func (f File) WriteByteRaw(b *byte) (int, error) { return unix.Write(f.sysfd(), unsafeSlice(b)) }
func (f File) ReadByteRaw(b *byte) (int, error)  { return unix.Read(f.sysfd(), unsafeSlice(b)) }
func (f File) WriteSmall(b []byte) (int, error)  { return unix.Write(f.sysfd(), b) }
func (f File) ReadSmall(b []byte) (int, error)   { return unix.Read(f.sysfd(), b) }
func (f File) CloseSmall() error                 { return unix.Close(f.sysfd()) }

// ReadNames lists every entry of d but "." and "..", dot files included,
// through a duplicate of d's descriptor.
func (d Dir) ReadNames() ([]string, error) {
	fd, err := unix.Dup(d.sysfd())
	if err != nil {
		return nil, &os.PathError{Op: "dup", Path: d.path, Err: err}
	}
	f := os.NewFile(uintptr(fd), d.path)
	defer f.Close()
	if _, err := f.Seek(0, 0); err != nil {
		return nil, err
	}
	return f.Readdirnames(-1)
}
