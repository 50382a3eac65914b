package osio

import (
	"fmt"

	"github.com/clydebench/clyde/result"
)

// The Windows open is decided here, without x/sys/windows, so that the rule
// is a pure function the tests check on every platform. The values are the
// SDK's (winnt.h, ntifs.h).
const (
	ntSynchronize        = 0x00100000
	ntFileGenericRead    = 0x00120089
	ntFileGenericWrite   = 0x00120116
	ntFileReadAttributes = 0x00000080
	ntFileAppendData     = 0x00000004

	ntShareRead   = 0x1
	ntShareWrite  = 0x2
	ntShareDelete = 0x4

	// NtCreateFile dispositions and create options.
	ntFileOpen                = 0x1
	ntFileCreate              = 0x2
	ntDirectoryFile           = 0x00000001
	ntWriteThrough            = 0x00000002
	ntNoIntermediateBuffering = 0x00000008
	ntSynchronousIONonalert   = 0x00000020
	ntNonDirectoryFile        = 0x00000040
	ntOpenForBackupIntent     = 0x00004000
	ntOpenReparsePoint        = 0x00200000
	win32FlagWriteThrough     = 0x80000000
	win32FlagOverlapped       = 0x40000000
	win32FlagNoBuffering      = 0x20000000
	win32FlagOpenReparsePoint = 0x00200000
	win32CreateNew            = 1
	win32OpenExisting         = 3
	win32FileAttributeNormal  = 0x80
	ntFileAttributeNormal     = 0x80
)

// winOpen is one open as Windows takes it: NtCreateFile's access, share
// mode, disposition and create options for a name relative to a directory
// handle, and CreateFile's flags for the same open by path.
type winOpen struct {
	access, share, disposition, options uint32
	// win32Flags and win32Disposition are CreateFile's dwFlagsAndAttributes
	// and dwCreationDisposition for OpenFile.
	win32Flags, win32Disposition uint32
}

// winOpenOf maps clyde's open flags to Windows':
//
//   - Direct is FILE_FLAG_NO_BUFFERING (NtCreateFile's
//     FILE_NO_INTERMEDIATE_BUFFERING): reads and writes go between the
//     device and the caller's buffer, which must be sector-aligned, as must
//     every size and offset (see SectorInfo).
//   - WriteThrough is FILE_FLAG_WRITE_THROUGH (FILE_WRITE_THROUGH): a write
//     returns once the device has it.
//   - Overlapped leaves out FILE_SYNCHRONOUS_IO_NONALERT (adds
//     FILE_FLAG_OVERLAPPED by path): the handle has no file position and its
//     I/O completes asynchronously, to an I/O completion port.
//   - Create is FILE_CREATE (CREATE_NEW): it fails if the name exists, and
//     never goes through a reparse point at the name.
//   - Every open of a name relative to a directory opens a reparse point
//     itself rather than what it points to (FILE_OPEN_REPARSE_POINT); the
//     caller then refuses one that is a symlink or junction, as O_NOFOLLOW
//     refuses a symlink.
//   - Exclusive is share mode 0; otherwise other handles may read, write and
//     delete, as on Unix.
//
// Append access is never asked for: with FILE_NO_INTERMEDIATE_BUFFERING,
// FILE_APPEND_DATA would let a write extend the file past a sector
// boundary.
func winOpenOf(flag Flag) (winOpen, error) {
	o := winOpen{share: ntShareRead | ntShareWrite | ntShareDelete, disposition: ntFileOpen,
		options: ntNonDirectoryFile | ntOpenReparsePoint, win32Disposition: win32OpenExisting,
		win32Flags: win32FileAttributeNormal}
	switch {
	case flag&ReadWrite != 0:
		o.access = ntFileGenericRead | ntFileGenericWrite
	case flag&WriteOnly != 0:
		o.access = ntFileGenericWrite | ntFileReadAttributes
	default:
		o.access = ntFileGenericRead
	}
	o.access = (o.access | ntSynchronize) &^ ntFileAppendData
	if flag&Create != 0 {
		o.disposition, o.win32Disposition = ntFileCreate, win32CreateNew
	}
	if flag&Exclusive != 0 {
		o.share = 0
	}
	if flag&Overlapped != 0 {
		o.win32Flags |= win32FlagOverlapped
	} else {
		o.options |= ntSynchronousIONonalert
	}
	if flag&Direct != 0 {
		o.options |= ntNoIntermediateBuffering
		o.win32Flags |= win32FlagNoBuffering
	}
	if flag&WriteThrough != 0 {
		o.options |= ntWriteThrough
		o.win32Flags |= win32FlagWriteThrough
	}
	if flag&Create != 0 && flag&(ReadWrite|WriteOnly) == 0 {
		return o, fmt.Errorf("create needs write access: %w", result.ErrNotSupported)
	}
	return o, nil
}
