// Package osio is clyde's one I/O layer: directory and file handles over raw
// descriptors, with every name resolved relative to an open directory and no
// symlink followed, so a directory swapped for a symlink mid-run sends
// nothing elsewhere. It also holds the aligned-buffer helper, page-cache
// eviction and thread isolation the engines share.
//
// Names passed to Dir methods are NUL-terminated byte slices (Name makes one):
// on Linux the hot loops of the file tests call the kernel with them directly,
// without an allocation per operation. On the BSDs and macOS the same calls go
// through x/sys/unix's *at functions. On Windows every name is opened with
// NtCreateFile relative to the directory's handle (dir_windows.go), the one
// exception being symlink creation, which goes by full path after checking
// that the directory is still the one opened. Elsewhere they go through
// os.Root, which opens every name relative to the directory and refuses to
// leave it.
package osio

import (
	"unsafe"
)

// Name returns s as a NUL-terminated name for Dir's methods.
func Name(s string) []byte { return append([]byte(s), 0) }

// nameString drops the terminating NUL.
func nameString(name []byte) string {
	if n := len(name); n > 0 && name[n-1] == 0 {
		return string(name[:n-1])
	}
	return string(name)
}

// Flag says how a file is opened. Every open adds no-follow and close-on-exec.
type Flag int

// Open flags.
const (
	ReadOnly Flag = 1 << iota
	WriteOnly
	ReadWrite
	// Create makes a new file and fails if the name exists (O_CREAT|O_EXCL).
	Create
	// Direct bypasses the page cache (O_DIRECT, F_NOCACHE); where the
	// platform cannot, the open fails with an error wrapping
	// result.ErrNotSupported.
	Direct
	// NoFollow makes OpenFile refuse a symlink in the last component of
	// the path (Dir's methods never follow one).
	NoFollow
	// Exclusive opens a block device exclusively (O_EXCL on Linux): the
	// open fails with EBUSY while the kernel or another program claims the
	// device, and nothing can mount or claim it while the descriptor lasts.
	// On Windows it is share mode 0: the open fails while any other handle
	// with read, write or delete access is open, and no such handle can be
	// opened while it lasts.
	Exclusive
	// WriteThrough makes every write reach the device before it returns
	// (FILE_FLAG_WRITE_THROUGH). Only Windows has it as an open flag here
	// (WriteThroughSupported); elsewhere the open fails with an error
	// wrapping result.ErrNotSupported.
	WriteThrough
	// Overlapped opens a handle for asynchronous I/O (FILE_FLAG_OVERLAPPED,
	// Windows only): the queueing engine issues its reads and writes on it
	// through an I/O completion port. Elsewhere it is refused like
	// WriteThrough.
	Overlapped
)

// BufferAlign is the alignment of every buffer AlignedBuffer returns: it
// satisfies direct I/O on every device and filesystem clyde meets (logical
// blocks of 512 or 4096 bytes, memory pages of 4 KiB).
const BufferAlign = 4096

// AlignedBuffer is the one place direct-I/O buffers come from: n bytes
// starting on a BufferAlign boundary.
func AlignedBuffer(n int) []byte {
	b := make([]byte, n+BufferAlign)
	skip := 0
	if rem := int(uintptr(unsafe.Pointer(unsafe.SliceData(b))) & (BufferAlign - 1)); rem != 0 {
		skip = BufferAlign - rem
	}
	return b[skip : skip+n : skip+n]
}

// Identity is what makes a file the same file: device and inode on Unix,
// the volume serial and file ID on Windows, and the birth time where the
// platform records one, so that an inode number a filesystem hands out again
// to a later file does not pass for the earlier one.
type Identity struct {
	Dev, Ino uint64
	Birth    int64 // ns since the epoch; 0 when unknown
}

// Same is true when a and b are one file. A birth time counts only when
// both sides know it.
func (a Identity) Same(b Identity) bool { return a.Dev == b.Dev && a.SameInode(b) }

// SameInode compares all but the device number, which differs between the
// hosts that mount one NFS export: the inode number and birth time are the
// server's.
func (a Identity) SameInode(b Identity) bool {
	return a.Ino == b.Ino && (a.Birth == 0 || b.Birth == 0 || a.Birth == b.Birth)
}

// Entry is what Lstat says of a name in a directory.
type Entry struct {
	ID    Identity
	Dir   bool
	Reg   bool
	Link  bool
	Dev   bool // a block device
	Size  int64
	Mode  uint32 // permission bits
	UID   int    // -1 where the platform has none
	Nlink uint64
}

// ReadAll reads f from its current offset to the end, at most limit bytes
// (a small file clyde wrote, such as a marker).
func ReadAll(f File, limit int) ([]byte, error) {
	buf := make([]byte, 0, min(limit, 4096))
	for len(buf) < limit {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):min(cap(buf), limit)])
		if err != nil {
			return buf, err
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+n]
	}
	return buf, nil
}
