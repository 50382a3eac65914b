//go:build !unix && !windows

package osio

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"

	"github.com/clydebench/clyde/result"
)

// Outside Unix every name goes through os.Root, which opens it relative to
// the directory's handle and refuses any path (or symlink) that leaves the
// directory: on Windows the closest thing to openat. Names convert to
// strings, so the file tests allocate per operation here.

// Dir is an open directory. Its methods resolve names relative to it.
type Dir struct {
	root *os.Root
	path string
}

// File is an open file.
type File struct{ f *os.File }

// NoFile is the zero File.
var NoFile = File{}

// DirectSupported says whether Direct opens can work here.
const DirectSupported = false

// WriteThroughSupported says whether WriteThrough opens can work here.
const WriteThroughSupported = false

// OpenDir opens the directory a user named.
func OpenDir(path string) (Dir, error) {
	r, err := os.OpenRoot(path)
	if err != nil {
		return Dir{}, err
	}
	return Dir{root: r, path: path}, nil
}

// Path is the directory's path, for messages.
func (d Dir) Path() string { return d.path }

// Fd is -1: there is no descriptor to lock or call with here.
func (d Dir) Fd() int { return -1 }

// Valid says whether d holds a handle.
func (d Dir) Valid() bool { return d.root != nil }

// Close closes the directory.
func (d Dir) Close() error {
	if d.root == nil {
		return nil
	}
	return d.root.Close()
}

func (d Dir) join(name []byte) string { return d.path + string(os.PathSeparator) + nameString(name) }

func osFlags(flag Flag) (int, error) {
	flags := os.O_RDONLY
	switch {
	case flag&ReadWrite != 0:
		flags = os.O_RDWR
	case flag&WriteOnly != 0:
		flags = os.O_WRONLY
	}
	if flag&Create != 0 {
		flags |= os.O_CREATE | os.O_EXCL
	}
	if flag&(Direct|WriteThrough|Overlapped) != 0 {
		return 0, fmt.Errorf("uncached, write-through or overlapped I/O on %s: %w", runtime.GOOS, result.ErrNotSupported)
	}
	return flags, nil // NoFollow and Exclusive: the identity check after each open is what guards here
}

// Open opens (with Create, creates exclusively) the file name in d.
func (d Dir) Open(name []byte, flag Flag, perm uint32) (File, error) {
	flags, err := osFlags(flag)
	if err != nil {
		return NoFile, err
	}
	f, err := d.root.OpenFile(nameString(name), flags, fs.FileMode(perm))
	if err != nil {
		return NoFile, err
	}
	return File{f}, nil
}

// OpenFile opens a file or device the user named by path.
func OpenFile(path string, flag Flag) (File, error) {
	flags, err := osFlags(flag)
	if err != nil {
		return NoFile, err
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return NoFile, err
	}
	return File{f}, nil
}

// Lstat describes name in d without following a symlink.
func (d Dir) Lstat(name []byte) (Entry, error) {
	fi, err := d.root.Lstat(nameString(name))
	if err != nil {
		return Entry{}, err
	}
	e := entryOfInfo(fi)
	if !e.Link {
		if f, err := d.root.Open(nameString(name)); err == nil {
			e.ID, _ = identityOf(f)
			f.Close()
		}
	}
	return e, nil
}

// Identity is the directory's own identity.
func (d Dir) Identity() (Identity, error) {
	f, err := d.root.Open(".")
	if err != nil {
		return Identity{}, err
	}
	defer f.Close()
	return identityOf(f)
}

// Truncate sets the file's size.
func (f File) Truncate(size int64) error { return f.f.Truncate(size) }

// Stat describes the open file.
func (f File) Stat() (Entry, error) {
	fi, err := f.f.Stat()
	if err != nil {
		return Entry{}, err
	}
	e := entryOfInfo(fi)
	e.ID, err = identityOf(f.f)
	return e, err
}

func entryOfInfo(fi fs.FileInfo) Entry {
	return Entry{Dir: fi.IsDir(), Reg: fi.Mode().IsRegular(), Link: fi.Mode()&fs.ModeSymlink != 0,
		Size: fi.Size(), Mode: uint32(fi.Mode().Perm()), UID: -1, Nlink: 1}
}

// Mkdir makes the directory name in d.
func (d Dir) Mkdir(name []byte, perm uint32) error {
	return d.root.Mkdir(nameString(name), fs.FileMode(perm))
}

// OpenSubdir opens the directory name in d.
func (d Dir) OpenSubdir(name []byte) (Dir, error) {
	r, err := d.root.OpenRoot(nameString(name))
	if err != nil {
		return Dir{}, err
	}
	return Dir{root: r, path: d.join(name)}, nil
}

// Remove removes the file or empty directory name in d.
func (d Dir) Remove(name []byte) error { return d.root.Remove(nameString(name)) }

// Rename renames oldName to newName within d.
func (d Dir) Rename(oldName, newName []byte) error {
	return d.root.Rename(nameString(oldName), nameString(newName))
}

// Sync flushes the directory where the platform can.
func (d Dir) Sync() error {
	f, err := d.root.Open(".")
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// SyncFSMethod is what SyncFS does, for results.
const SyncFSMethod = "none"

// SyncFS: no per-filesystem flush here; the result says so.
func (d Dir) SyncFS() error { return result.ErrNotSupported }

// ReadNames lists every entry of d but "." and "..".
func (d Dir) ReadNames() ([]string, error) {
	f, err := d.root.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// Small-file calls: the same as the ordinary ones here.
func (d Dir) CreateSmall(name []byte) (File, error) {
	return d.Open(name, WriteOnly|Create, 0o600)
}
func (d Dir) OpenSmall(name []byte) (File, error)      { return d.Open(name, ReadOnly, 0) }
func (d Dir) OpenSubdirSmall(name []byte) (Dir, error) { return d.OpenSubdir(name) }
func (d Dir) MkdirSmall(name []byte) error             { return d.Mkdir(name, 0o700) }
func (d Dir) UnlinkSmall(name []byte) error            { return d.Remove(name) }
func (d Dir) RmdirSmall(name []byte) error             { return d.Remove(name) }
func (d Dir) LinkSmall(oldName, newName []byte) error {
	return d.root.Link(nameString(oldName), nameString(newName))
}
func (d Dir) SymlinkSmall(target, newName []byte) error {
	return d.root.Symlink(nameString(target), nameString(newName))
}

// StatBuf is unused here.
type StatBuf struct{}

// StatSmall follows symlinks, as bonnie++'s stat() does; it returns the size.
func (d Dir) StatSmall(name []byte, _ *StatBuf) (int64, error) {
	fi, err := d.root.Stat(nameString(name))
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// Valid says whether f holds a file.
func (f File) Valid() bool { return f.f != nil }

// Fd is the handle as a number.
func (f File) Fd() int { return int(f.f.Fd()) }

func (f File) Write(b []byte) (int, error) { return f.f.Write(b) }
func (f File) Read(b []byte) (int, error)  { n, err := f.f.Read(b); return n, eofIsNil(err) }
func (f File) Pread(b []byte, off int64) (int, error) {
	n, err := f.f.ReadAt(b, off)
	return n, eofIsNil(err)
}
func (f File) Pwrite(b []byte, off int64) (int, error)   { return f.f.WriteAt(b, off) }
func (f File) Seek(off int64, whence int) (int64, error) { return f.f.Seek(off, whence) }
func (f File) Sync() error                               { return f.f.Sync() }
func (f File) Close() error                              { return f.f.Close() }
func (f File) WriteByteRaw(b *byte) (int, error)         { return f.f.Write(unsafeSlice(b)) }
func (f File) ReadByteRaw(b *byte) (int, error)          { return f.Read(unsafeSlice(b)) }
func (f File) WriteSmall(b []byte) (int, error)          { return f.f.Write(b) }
func (f File) ReadSmall(b []byte) (int, error)           { return f.Read(b) }
func (f File) CloseSmall() error                         { return f.f.Close() }

func eofIsNil(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}
