//go:build linux

package osio

import (
	"errors"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// CopyFileRange asks the kernel to copy up to n bytes from src's file
// position to dst's (copy_file_range(2)) and returns how many it copied,
// 0 at the end of src. Within one filesystem the kernel copies by splicing
// pages, or, on btrfs, xfs and others that can, by sharing extents (a
// reflink); SharedExtents tells which happened.
func CopyFileRange(dst, src File, n int) (int, error) {
	for {
		k, err := unix.CopyFileRange(src.sysfd(), nil, dst.sysfd(), nil, n, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return k, os.NewSyscallError("copy_file_range", err)
		}
		return k, nil
	}
}

// Clone makes dst share all of src's extents (the FICLONE ioctl, what
// cp --reflink=always does): no data moves, both files point at the same
// blocks until one is written.
func Clone(dst, src File) error {
	if err := unix.IoctlFileClone(dst.sysfd(), src.sysfd()); err != nil {
		return os.NewSyscallError("ioctl FICLONE", err)
	}
	return nil
}

// CannotCopy says whether err, from CopyFileRange or Clone, means that the
// filesystem or the pair of filesystems cannot do it at all, rather than a
// failure of this one call, and why, in words for a report.
func CannotCopy(err error) (string, bool) {
	switch {
	case errors.Is(err, unix.EXDEV):
		return "source and copy are on different filesystems (EXDEV)", true
	case errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.ENOTTY), errors.Is(err, unix.ENOSYS):
		return "the filesystem does not support it (" + errnoName(err) + ")", true
	case errors.Is(err, unix.EINVAL):
		// FICLONE's answer on filesystems that share extents only in
		// some layouts, and copy_file_range's on ones that refuse it.
		return "the filesystem refuses it (EINVAL)", true
	}
	return "", false
}

// errnoName is the errno's C name; ENOTSUP and EOPNOTSUPP are one number
// on Linux, and the man pages of FICLONE and copy_file_range say EOPNOTSUPP.
func errnoName(err error) string {
	var e unix.Errno
	errors.As(err, &e)
	if e == unix.EOPNOTSUPP {
		return "EOPNOTSUPP"
	}
	return unix.ErrnoName(e)
}

// AdviseSequential tells the kernel f will be read from start to end
// (posix_fadvise SEQUENTIAL, as GNU cp does for every source), which
// doubles its readahead. It is advice: an error is ignored.
func AdviseSequential(f File) { _ = unix.Fadvise(f.sysfd(), 0, 0, unix.FADV_SEQUENTIAL) }

// FIEMAP's structures and flags, from linux/fiemap.h; x/sys/unix does not
// wrap the ioctl.
const (
	fsIocFiemap       = 0xC020660B // _IOWR('f', 11, struct fiemap)
	fiemapFlagSync    = 0x1
	fiemapExtentLast  = 0x1
	fiemapExtentShare = 0x2000
	fiemapUnwritten   = 0x800
	fiemapBatch       = 64
)

type fiemapHeader struct {
	Start, Length                     uint64
	Flags, MappedExtents, ExtentCount uint32
	reserved                          uint32
}

type fiemapExtent struct {
	Logical, Physical, Length uint64
	reserved64                [2]uint64
	Flags                     uint32
	reserved                  [3]uint32
}

type fiemapRequest struct {
	h       fiemapHeader
	extents [fiemapBatch]fiemapExtent
}

// SharedExtents reports whether any extent of f is shared with another
// file (FIEMAP_EXTENT_SHARED): f is a clone, or a copy the kernel made by
// reflinking, and holds no data of its own. Where FIEMAP is not available
// (FUSE, tmpfs) the error says so.
func SharedExtents(f File) (bool, error) {
	shared := false
	err := walkExtents(f, 0, ^uint64(0), func(x fiemapExtent) bool {
		shared = x.Flags&fiemapExtentShare != 0
		return !shared
	})
	return shared && err == nil, err
}

// walkExtents calls fn for each extent of f's [start, start+length) in
// order, until fn returns false or the last extent.
func walkExtents(f File, start, length uint64, fn func(fiemapExtent) bool) error {
	var req fiemapRequest
	end := start + length
	if end < start {
		end = ^uint64(0)
	}
	for start < end {
		req.h = fiemapHeader{Start: start, Length: end - start, Flags: fiemapFlagSync, ExtentCount: fiemapBatch}
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(f.sysfd()), fsIocFiemap, uintptr(unsafe.Pointer(&req))); e != 0 {
			return os.NewSyscallError("ioctl FIEMAP", e)
		}
		n := int(req.h.MappedExtents)
		if n == 0 {
			return nil
		}
		for _, x := range req.extents[:n] {
			if !fn(x) || x.Flags&fiemapExtentLast != 0 {
				return nil
			}
		}
		last := req.extents[n-1]
		start = last.Logical + last.Length
	}
	return nil
}
