//go:build unix

package osio

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/result"
)

// Dir is an open directory. Its methods resolve names relative to it. The
// zero Dir holds no descriptor.
type Dir struct {
	fd1  int    // the descriptor plus one, so the zero value is no descriptor
	path string // for messages only; never opened again
}

// File is an open file: a raw descriptor, so the hot loops neither lock nor
// allocate per call. The zero File holds no descriptor (never 0, stdin).
type File struct{ fd1 int }

// NoFile is the zero File: no descriptor.
var NoFile = File{}

func newFile(fd int) File            { return File{fd1: fd + 1} }
func newDir(fd int, path string) Dir { return Dir{fd1: fd + 1, path: path} }
func (f File) sysfd() int            { return f.fd1 - 1 }
func (d Dir) sysfd() int             { return d.fd1 - 1 }

// OpenDir opens the directory a user named. Symlinks in path are followed
// once, here, because the user named the path; everything clyde then does
// in it goes through the descriptor.
func OpenDir(path string) (Dir, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return Dir{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return newDir(fd, path), nil
}

// Path is the directory's path, for messages.
func (d Dir) Path() string { return d.path }

// Fd is the descriptor, for locks and system calls this package does not wrap.
func (d Dir) Fd() int { return d.sysfd() }

// Valid says whether d holds a descriptor.
func (d Dir) Valid() bool { return d.fd1 > 0 }

// Close closes the directory; the zero Dir has nothing to close.
func (d Dir) Close() error {
	if !d.Valid() {
		return nil
	}
	return unix.Close(d.sysfd())
}

func (d Dir) join(name []byte) string { return d.path + "/" + nameString(name) }

// WriteThroughSupported says whether WriteThrough opens can work here.
const WriteThroughSupported = false

func unixFlags(flag Flag) (int, error) {
	if flag&(WriteThrough|Overlapped) != 0 {
		return 0, fmt.Errorf("write-through and overlapped opens are Windows flags: %w", result.ErrNotSupported)
	}
	flags := unix.O_NOFOLLOW | unix.O_CLOEXEC
	switch {
	case flag&ReadWrite != 0:
		flags |= unix.O_RDWR
	case flag&WriteOnly != 0:
		flags |= unix.O_WRONLY
	default:
		flags |= unix.O_RDONLY
	}
	switch {
	case flag&Create != 0:
		flags |= unix.O_CREAT | unix.O_EXCL
	case flag&Exclusive != 0:
		flags |= unix.O_EXCL
	}
	if flag&Direct != 0 {
		d, err := directOpenFlag()
		if err != nil {
			return 0, err
		}
		flags |= d
	}
	return flags, nil
}

// Open opens (with Create, creates exclusively) the file name in d. A
// symlink at name is refused (ELOOP), never followed.
func (d Dir) Open(name []byte, flag Flag, perm uint32) (File, error) {
	flags, err := unixFlags(flag)
	if err != nil {
		return NoFile, err
	}
	fd, err := unix.Openat(d.sysfd(), nameString(name), flags, perm)
	if err != nil {
		return NoFile, &os.PathError{Op: "open", Path: d.join(name), Err: err}
	}
	f := newFile(fd)
	if flag&Direct != 0 {
		if err := afterDirectOpen(fd); err != nil {
			_ = unix.Close(fd)
			return NoFile, &os.PathError{Op: "open", Path: d.join(name), Err: err}
		}
	}
	return f, nil
}

// OpenFile opens a file or device the user named by path (a block target).
// Symlinks in the path are followed: the user named it.
func OpenFile(path string, flag Flag) (File, error) {
	flags, err := unixFlags(flag)
	if err != nil {
		return NoFile, err
	}
	if flag&NoFollow == 0 {
		flags &^= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(path, flags, 0o600)
	if err != nil {
		return NoFile, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if flag&Direct != 0 {
		if err := afterDirectOpen(fd); err != nil {
			_ = unix.Close(fd)
			return NoFile, &os.PathError{Op: "open", Path: path, Err: err}
		}
	}
	return newFile(fd), nil
}

// Lstat describes name in d without following a symlink.
func (d Dir) Lstat(name []byte) (Entry, error) {
	e, err := statAt(d.sysfd(), nameString(name), unix.AT_SYMLINK_NOFOLLOW)
	if err != nil {
		return Entry{}, &os.PathError{Op: "lstat", Path: d.join(name), Err: err}
	}
	return e, nil
}

// Identity is the directory's own identity.
func (d Dir) Identity() (Identity, error) {
	e, err := statAt(d.sysfd(), "", emptyPath)
	if err != nil {
		return Identity{}, &os.PathError{Op: "fstat", Path: d.path, Err: err}
	}
	return e.ID, nil
}

// Stat describes the open file.
func (f File) Stat() (Entry, error) { return statAt(f.sysfd(), "", emptyPath) }

// Truncate sets the file's size.
func (f File) Truncate(size int64) error { return unix.Ftruncate(f.sysfd(), size) }

func entryOf(st *unix.Stat_t) Entry {
	mode := uint32(st.Mode)
	return Entry{
		ID:    Identity{Dev: uint64(st.Dev), Ino: uint64(st.Ino)},
		Dir:   mode&unix.S_IFMT == unix.S_IFDIR,
		Reg:   mode&unix.S_IFMT == unix.S_IFREG,
		Link:  mode&unix.S_IFMT == unix.S_IFLNK,
		Dev:   mode&unix.S_IFMT == unix.S_IFBLK,
		Size:  st.Size,
		Mode:  mode & 0o7777,
		UID:   int(st.Uid),
		Nlink: uint64(st.Nlink),
	}
}

// Mkdir makes the directory name in d.
func (d Dir) Mkdir(name []byte, perm uint32) error {
	if err := unix.Mkdirat(d.sysfd(), nameString(name), perm); err != nil {
		return &os.PathError{Op: "mkdir", Path: d.join(name), Err: err}
	}
	return nil
}

// OpenSubdir opens the directory name in d; a symlink there is refused.
func (d Dir) OpenSubdir(name []byte) (Dir, error) {
	fd, err := unix.Openat(d.sysfd(), nameString(name), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return Dir{}, &os.PathError{Op: "open", Path: d.join(name), Err: err}
	}
	return newDir(fd, d.join(name)), nil
}

// Remove removes the file or empty directory name in d, never what a
// symlink there points at.
func (d Dir) Remove(name []byte) error {
	s := nameString(name)
	err := unix.Unlinkat(d.sysfd(), s, 0)
	if errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EPERM) {
		if e := unix.Unlinkat(d.sysfd(), s, unix.AT_REMOVEDIR); e == nil || !errors.Is(e, unix.ENOTDIR) {
			err = e
		}
	}
	if err != nil {
		return &os.PathError{Op: "remove", Path: d.join(name), Err: err}
	}
	return nil
}

// Rename renames oldName to newName within d.
func (d Dir) Rename(oldName, newName []byte) error {
	if err := unix.Renameat(d.sysfd(), nameString(oldName), d.sysfd(), nameString(newName)); err != nil {
		return fmt.Errorf("rename %s to %s: %w", d.join(oldName), nameString(newName), err)
	}
	return nil
}

// Sync fsyncs the directory itself (bonnie++ -b).
func (d Dir) Sync() error { return unix.Fsync(d.sysfd()) }

// Fd is the descriptor.
func (f File) Fd() int { return f.sysfd() }

// Valid says whether f holds a descriptor.
func (f File) Valid() bool { return f.fd1 > 0 }

func (f File) Write(b []byte) (int, error)             { return unix.Write(f.sysfd(), b) }
func (f File) Read(b []byte) (int, error)              { return unix.Read(f.sysfd(), b) }
func (f File) Pread(b []byte, off int64) (int, error)  { return unix.Pread(f.sysfd(), b, off) }
func (f File) Pwrite(b []byte, off int64) (int, error) { return unix.Pwrite(f.sysfd(), b, off) }
func (f File) Seek(off int64, whence int) (int64, error) {
	return unix.Seek(f.sysfd(), off, whence)
}

// Sync is fsync(2).
func (f File) Sync() error { return unix.Fsync(f.sysfd()) }

// Close closes the descriptor.
func (f File) Close() error { return unix.Close(f.sysfd()) }

// UnixOpenFlags is the open(2) flags for flag, O_NOFOLLOW and O_CLOEXEC
// included: for internal/safepath, which opens names itself.
func UnixOpenFlags(flag Flag) (int, error) { return unixFlags(flag) }

// DirOf wraps an open directory descriptor (internal/safepath's); the Dir
// owns it. path is for messages only.
func DirOf(fd int, path string) Dir { return newDir(fd, path) }

// FileOf wraps an open descriptor; the File owns it.
func FileOf(fd int) File { return newFile(fd) }
