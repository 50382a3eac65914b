//go:build linux

package fsbench

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// On Linux the I/O loops call the kernel directly with NUL-terminated byte
// names relative to a directory descriptor, so no operation allocates and the
// syscalls are the ones bonnie++ makes (openat, write, read, lseek, fsync,
// newfstatat, unlinkat, getdents64).
//
// The small-file operations and the one-byte calls use RawSyscall, which skips
// the Go scheduler's syscall bookkeeping. That bookkeeping costs a large part
// of a call that takes one to three microseconds, and when calls come this
// fast it keeps the runtime's monitor thread waking every 20 us to hand the
// processor over, so the figures would measure Go rather than the filesystem.
// The cost: while such a call blocks (a slow disk), its goroutine keeps its
// processor, which delays the garbage collector and signal handling by at
// most that one call. Block I/O on the big file keeps the ordinary path.

const directSupported = true

// fileHandle is an open file descriptor.
type fileHandle struct{ fd int }

func openFlags(create, direct bool) int {
	flags := unix.O_RDWR | unix.O_NOFOLLOW | unix.O_CLOEXEC
	if create {
		flags |= unix.O_CREAT | unix.O_EXCL
	}
	if direct {
		flags |= unix.O_DIRECT
	}
	return flags
}

// openPath opens (create: creates exclusively) the big test file.
func openPath(path string, create, direct bool) (fileHandle, error) {
	fd, err := unix.Open(path, openFlags(create, direct), 0o600)
	if err != nil {
		return fileHandle{-1}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return fileHandle{fd}, nil
}

func (f fileHandle) write(b []byte) (int, error) { return unix.Write(f.fd, b) }
func (f fileHandle) read(b []byte) (int, error)  { return unix.Read(f.fd, b) }
func (f fileHandle) seek(off int64, whence int) (int64, error) {
	return unix.Seek(f.fd, off, whence)
}
func (f fileHandle) sync() error  { return unix.Fsync(f.fd) }
func (f fileHandle) close() error { return unix.Close(f.fd) }

// dirHandle is an open directory; names given to its methods end in a NUL byte.
type dirHandle struct {
	fd   int
	path string
}

func openDirPath(path string) (dirHandle, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return dirHandle{fd: -1}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return dirHandle{fd: fd, path: path}, nil
}

func errnoErr(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

func namePtr(name []byte) uintptr { return uintptr(unsafe.Pointer(&name[0])) }

func (d dirHandle) openAt(name []byte, flags int, mode uint32) (int, error) {
	fd, _, e := unix.RawSyscall6(unix.SYS_OPENAT, uintptr(d.fd), namePtr(name), uintptr(flags), uintptr(mode), 0, 0)
	if e != 0 {
		return -1, errnoErr(e)
	}
	return int(fd), nil
}

func (d dirHandle) create(name []byte) (fileHandle, error) {
	fd, err := d.openAt(name, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	return fileHandle{fd}, err
}

func (d dirHandle) openRead(name []byte) (fileHandle, error) {
	fd, err := d.openAt(name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	return fileHandle{fd}, err
}

func (d dirHandle) openSubdir(name []byte) (dirHandle, error) {
	fd, err := d.openAt(name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	return dirHandle{fd: fd, path: d.path + "/" + string(name[:len(name)-1])}, err
}

func (d dirHandle) mkdir(name []byte) error {
	_, _, e := unix.RawSyscall(unix.SYS_MKDIRAT, uintptr(d.fd), namePtr(name), 0o700)
	return errnoErr(e)
}

func (d dirHandle) unlink(name []byte) error {
	_, _, e := unix.RawSyscall(unix.SYS_UNLINKAT, uintptr(d.fd), namePtr(name), 0)
	return errnoErr(e)
}

func (d dirHandle) rmdir(name []byte) error {
	_, _, e := unix.Syscall(unix.SYS_UNLINKAT, uintptr(d.fd), namePtr(name), unix.AT_REMOVEDIR)
	return errnoErr(e)
}

func (d dirHandle) link(oldName, newName []byte) error {
	_, _, e := unix.RawSyscall6(unix.SYS_LINKAT, uintptr(d.fd), namePtr(oldName), uintptr(d.fd), namePtr(newName), 0, 0)
	return errnoErr(e)
}

func (d dirHandle) symlink(target, newName []byte) error {
	_, _, e := unix.RawSyscall(unix.SYS_SYMLINKAT, namePtr(target), uintptr(d.fd), namePtr(newName))
	return errnoErr(e)
}

// sync fsyncs the directory itself (bonnie++ -b).
func (d dirHandle) sync() error { return unix.Fsync(d.fd) }

// syncFS flushes the filesystem holding d. bonnie++ calls sync(), which
// flushes every filesystem on the machine; syncfs keeps other disks' writeback
// out of clyde's timings.
func (d dirHandle) syncFS() error { return unix.Syncfs(d.fd) }

func (d dirHandle) close() error { return unix.Close(d.fd) }

// dirScanner reads a directory in the order the filesystem returns entries.
type dirScanner struct {
	buf []byte
}

func newDirScanner() *dirScanner { return &dirScanner{buf: make([]byte, 32<<10)} }

// scan calls fn with each entry's NUL-terminated name, skipping names that
// start with '.', in readdir order. fn's name is valid only during the call.
func (s *dirScanner) scan(d dirHandle, fn func(name []byte) error) error {
	if _, err := unix.Seek(d.fd, 0, 0); err != nil {
		return err
	}
	for {
		n, err := unix.Getdents(d.fd, s.buf)
		if err != nil {
			return err
		}
		if n <= 0 {
			return nil
		}
		for off := 0; off < n; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name[].
			reclen := int(*(*uint16)(unsafe.Pointer(&s.buf[off+16])))
			if reclen == 0 {
				return unix.EIO
			}
			name := s.buf[off+19 : off+reclen]
			if end := indexZero(name); end >= 0 {
				name = name[:end+1]
			}
			off += reclen
			if len(name) < 2 || name[0] == '.' {
				continue
			}
			if err := fn(name); err != nil {
				return err
			}
		}
	}
}

func indexZero(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

// writeByteRaw and readByteRaw are the per-char tests' one-byte write(2) and
// read(2), raw (see the top of this file).
func (f fileHandle) writeByteRaw(b *byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(f.fd), uintptr(unsafe.Pointer(b)), 1)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func (f fileHandle) readByteRaw(b *byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(f.fd), uintptr(unsafe.Pointer(b)), 1)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// writeSmall, readSmall and closeSmall are the small-file tests' calls, raw
// (see the top of this file).
func (f fileHandle) writeSmall(b []byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(f.fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func (f fileHandle) readSmall(b []byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(f.fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func (f fileHandle) closeSmall() error {
	_, _, e := unix.RawSyscall(unix.SYS_CLOSE, uintptr(f.fd), 0, 0)
	return errnoErr(e)
}
