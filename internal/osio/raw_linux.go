//go:build linux

package osio

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// On Linux the file tests' hot loops call the kernel directly with
// NUL-terminated names relative to a directory descriptor, so no operation
// allocates and the syscalls are the ones bonnie++ makes (openat, write,
// read, newfstatat, unlinkat, getdents64).
//
// They use RawSyscall, which skips the Go scheduler's syscall bookkeeping.
// That bookkeeping costs a large part of a call that takes one to three
// microseconds, and when calls come this fast it keeps the runtime's monitor
// thread waking every 20 us to hand the processor over, so the figures would
// measure Go rather than the filesystem. The cost: while such a call blocks
// (a slow disk), its goroutine keeps its processor, which delays the garbage
// collector and signal handling by at most that one call. Block I/O on big
// files keeps the ordinary path.

func errnoErr(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

func namePtr(name []byte) uintptr { return uintptr(unsafe.Pointer(&name[0])) }

func (d Dir) openAtRaw(name []byte, flags int, mode uint32) (int, error) {
	fd, _, e := unix.RawSyscall6(unix.SYS_OPENAT, uintptr(d.sysfd()), namePtr(name), uintptr(flags), uintptr(mode), 0, 0)
	if e != 0 {
		return -1, errnoErr(e)
	}
	return int(fd), nil
}

// CreateSmall creates a small file of the file tests, exclusively, for writing.
func (d Dir) CreateSmall(name []byte) (File, error) {
	fd, err := d.openAtRaw(name, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	return newFile(fd), err
}

// OpenSmall opens a small file for reading. Like bonnie++'s open() it
// follows a symlink: the symlink test reads file 0 through its links, which
// all point inside the test directory.
func (d Dir) OpenSmall(name []byte) (File, error) {
	fd, err := d.openAtRaw(name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	return newFile(fd), err
}

// OpenSubdirSmall opens a test subdirectory, raw; a symlink is refused.
func (d Dir) OpenSubdirSmall(name []byte) (Dir, error) {
	fd, err := d.openAtRaw(name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	return newDir(fd, d.join(name)), err
}

// MkdirSmall is mkdirat, raw, mode 0700.
func (d Dir) MkdirSmall(name []byte) error {
	_, _, e := unix.RawSyscall(unix.SYS_MKDIRAT, uintptr(d.sysfd()), namePtr(name), 0o700)
	return errnoErr(e)
}

// UnlinkSmall is unlinkat of a file, raw.
func (d Dir) UnlinkSmall(name []byte) error {
	_, _, e := unix.RawSyscall(unix.SYS_UNLINKAT, uintptr(d.sysfd()), namePtr(name), 0)
	return errnoErr(e)
}

// RmdirSmall is unlinkat of an empty directory.
func (d Dir) RmdirSmall(name []byte) error {
	_, _, e := unix.Syscall(unix.SYS_UNLINKAT, uintptr(d.sysfd()), namePtr(name), unix.AT_REMOVEDIR)
	return errnoErr(e)
}

// LinkSmall makes a hard link within d, raw.
func (d Dir) LinkSmall(oldName, newName []byte) error {
	_, _, e := unix.RawSyscall6(unix.SYS_LINKAT, uintptr(d.sysfd()), namePtr(oldName), uintptr(d.sysfd()), namePtr(newName), 0, 0)
	return errnoErr(e)
}

// SymlinkSmall makes a symlink within d, raw.
func (d Dir) SymlinkSmall(target, newName []byte) error {
	_, _, e := unix.RawSyscall(unix.SYS_SYMLINKAT, namePtr(target), uintptr(d.sysfd()), namePtr(newName))
	return errnoErr(e)
}

// SyncFSMethod is what SyncFS does, for results.
const SyncFSMethod = "syncfs(2) of the filesystem"

// SyncFS flushes the filesystem holding d. bonnie++ calls sync(), which
// flushes every filesystem on the machine; syncfs keeps other disks'
// writeback out of clyde's timings.
func (d Dir) SyncFS() error { return unix.Syncfs(d.sysfd()) }

// WriteByteRaw and ReadByteRaw are the per-char tests' one-byte write(2)
// and read(2), raw.
func (f File) WriteByteRaw(b *byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(f.sysfd()), uintptr(unsafe.Pointer(b)), 1)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func (f File) ReadByteRaw(b *byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(f.sysfd()), uintptr(unsafe.Pointer(b)), 1)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// WriteSmall, ReadSmall and CloseSmall are the small-file tests' calls, raw.
func (f File) WriteSmall(b []byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(f.sysfd()), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func (f File) ReadSmall(b []byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(f.sysfd()), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func (f File) CloseSmall() error {
	_, _, e := unix.RawSyscall(unix.SYS_CLOSE, uintptr(f.sysfd()), 0, 0)
	return errnoErr(e)
}

// Scanner reads a directory in the order the filesystem returns entries,
// with one buffer reused for every call.
type Scanner struct {
	buf []byte
}

// NewScanner returns a scanner with its own buffer.
func NewScanner() *Scanner { return &Scanner{buf: make([]byte, 32<<10)} }

// Scan calls fn with each entry's NUL-terminated name, skipping names that
// start with '.', in readdir order. fn's name is valid only during the call.
func (s *Scanner) Scan(d Dir, fn func(name []byte) error) error {
	if _, err := unix.Seek(d.sysfd(), 0, 0); err != nil {
		return err
	}
	for {
		n, err := unix.Getdents(d.sysfd(), s.buf)
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

// ReadNames lists every entry of d but "." and "..", dot files included.
func (d Dir) ReadNames() ([]string, error) {
	if _, err := unix.Seek(d.sysfd(), 0, 0); err != nil {
		return nil, err
	}
	buf := make([]byte, 8<<10)
	var names []string
	for {
		n, err := unix.Getdents(d.sysfd(), buf)
		if err != nil {
			return nil, &os.PathError{Op: "getdents", Path: d.path, Err: err}
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}
