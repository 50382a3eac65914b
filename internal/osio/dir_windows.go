//go:build windows

package osio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/clydebench/clyde/result"
)

// On Windows a Dir is a directory handle and every name in it is opened
// with NtCreateFile relative to that handle (OBJECT_ATTRIBUTES.RootDirectory),
// the closest thing Windows has to openat: a directory renamed or replaced
// by a junction mid-run sends nothing elsewhere. Each open goes to the
// reparse point itself (FILE_OPEN_REPARSE_POINT), and one that turns out to
// be a symlink or junction is refused, never followed. Removal sets the
// delete disposition on a handle opened the same way, entry by entry; with
// POSIX semantics where the filesystem has them (Windows 10 1607+, NTFS), the
// plain delete-on-close disposition otherwise (FAT, and Wine, whose answer to
// FileDispositionInformationEx Go's os.RemoveAll does not fall back from).
//
// One call goes by full path: creating a symlink (CreateSymbolicLink has no
// handle-relative form short of writing the reparse buffer by hand). Before
// it, the directory's path is opened again and must still be the directory
// this Dir holds (same volume serial and file ID), or nothing is created.
// Names convert to UTF-16 strings, so the file tests allocate per operation
// here.

// Dir is an open directory. Its methods resolve names relative to it. The
// zero Dir holds no handle.
type Dir struct {
	h    windows.Handle
	path string // for messages and the one full-path call
	// writable is true when the handle has write access, so
	// FlushFileBuffers works on it.
	writable bool
}

// File is an open file or raw disk. The zero File holds no handle.
type File struct {
	h windows.Handle
	x *fileState
}

// fileState is what a File keeps beside its handle: the OVERLAPPED of its
// positioned reads and writes (one per File, so they do not allocate; a
// File is used by one goroutine at a time) and what kind of handle it is.
type fileState struct {
	ov windows.Overlapped
	// dev is a raw disk (\\.\PhysicalDriveN): its size and identity come
	// from IOCTLs, not from the file system.
	dev bool
	// overlapped handles have no file position; their positioned calls
	// wait for the I/O with an event.
	overlapped bool
}

// NoFile is the zero File.
var NoFile = File{}

// DirectSupported says whether Direct opens can work here.
const DirectSupported = true

// WriteThroughSupported says whether WriteThrough opens can work here.
const WriteThroughSupported = true

// Access rights of directory handles: list, traverse and read attributes,
// and write access (where granted) for FlushFileBuffers.
const (
	dirReadAccess       = windows.FILE_LIST_DIRECTORY | windows.FILE_TRAVERSE | windows.FILE_READ_ATTRIBUTES | windows.SYNCHRONIZE
	dirWriteAccess      = dirReadAccess | fileAddFile | fileAddSubdirectory | windows.FILE_WRITE_ATTRIBUTES
	fileAddFile         = 0x2
	fileAddSubdirectory = 0x4
	volumeNameGUID      = 0x1 // GetFinalPathNameByHandle's VOLUME_NAME_GUID
	shareAll            = windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE
	// nameSurrogate marks a reparse tag that stands for another name
	// (symlinks, junctions): the kind of reparse point never followed.
	nameSurrogate = 0x20000000
)

var (
	ntdll                            = windows.NewLazySystemDLL("ntdll.dll")
	procNtQueryDirectoryFile         = ntdll.NewProc("NtQueryDirectoryFile")
	procNtQueryVolumeInformationFile = ntdll.NewProc("NtQueryVolumeInformationFile")
	procGetDiskFreeSpaceW            = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetDiskFreeSpaceW")
)

// errSymlink is what opening a name that is a symlink or junction gives.
var errSymlink = errors.New("is a symlink or junction; clyde does not follow it")

// OpenDir opens the directory a user named. Reparse points in path are
// followed once, here, because the user named the path; everything clyde
// then does in it goes through the handle.
func OpenDir(path string) (Dir, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return Dir{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	writable := true
	h, err := windows.CreateFile(p, dirWriteAccess, shareAll, nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		writable = false
		h, err = windows.CreateFile(p, dirReadAccess, shareAll, nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	}
	if err != nil {
		return Dir{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	e, err := entryOfHandle(h)
	if err == nil && !e.Dir {
		err = errors.New("not a directory")
	}
	if err != nil {
		windows.CloseHandle(h)
		return Dir{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return Dir{h: h, path: path, writable: writable}, nil
}

// Path is the directory's path, for messages.
func (d Dir) Path() string { return d.path }

// Fd is the handle as a number, for calls this package does not wrap.
func (d Dir) Fd() int { return int(d.h) }

// Valid says whether d holds a handle.
func (d Dir) Valid() bool { return d.h != 0 }

// Close closes the directory; the zero Dir has nothing to close.
func (d Dir) Close() error {
	if !d.Valid() {
		return nil
	}
	return windows.CloseHandle(d.h)
}

func (d Dir) join(name []byte) string {
	return d.path + `\` + strings.ReplaceAll(nameString(name), "/", `\`)
}

// winName turns a name relative to a Dir into NtCreateFile's form ('/'
// becomes '\'), refusing what could leave the directory: an absolute path,
// a drive or stream (':'), an empty or ".." component.
func winName(name []byte) (string, error) {
	s := strings.ReplaceAll(nameString(name), "/", `\`)
	if s == "" || strings.ContainsAny(s, ":\x00") || s[0] == '\\' {
		return "", fmt.Errorf("name %q: not a name inside the directory", s)
	}
	for _, c := range strings.Split(s, `\`) {
		if c == "" || c == ".." {
			return "", fmt.Errorf("name %q: not a name inside the directory", s)
		}
	}
	return s, nil
}

// ntOpenAt is NtCreateFile of name relative to root ("" opens root again).
func ntOpenAt(root windows.Handle, name string, access, attrs, share, disposition, options uint32) (windows.Handle, error) {
	us := &windows.NTUnicodeString{}
	if name != "" {
		var err error
		if us, err = windows.NewNTUnicodeString(name); err != nil {
			return 0, err
		}
	}
	oa := windows.OBJECT_ATTRIBUTES{RootDirectory: root, ObjectName: us, Attributes: windows.OBJ_CASE_INSENSITIVE}
	oa.Length = uint32(unsafe.Sizeof(oa))
	var h windows.Handle
	var iosb windows.IO_STATUS_BLOCK
	if err := windows.NtCreateFile(&h, access, &oa, &iosb, nil, attrs, share, disposition, options, 0, 0); err != nil {
		return 0, ntError(err)
	}
	return h, nil
}

// ntError turns an NTSTATUS into the Win32 error Go's fs errors know
// (ERROR_FILE_NOT_FOUND is fs.ErrNotExist, ERROR_FILE_EXISTS fs.ErrExist).
func ntError(err error) error {
	s, ok := err.(windows.NTStatus)
	if !ok {
		return err
	}
	switch s {
	case windows.STATUS_OBJECT_NAME_COLLISION:
		return windows.ERROR_FILE_EXISTS
	case windows.STATUS_DELETE_PENDING:
		// The name is on its way out (removed while a handle is open).
		return windows.ERROR_FILE_NOT_FOUND
	case windows.STATUS_NOT_A_DIRECTORY:
		return windows.ERROR_DIRECTORY
	}
	return s.Errno()
}

// Open opens (with Create, creates exclusively) the file name in d. A
// symlink or junction at name is refused, never followed.
func (d Dir) Open(name []byte, flag Flag, _ uint32) (File, error) {
	o, err := winOpenOf(flag)
	if err != nil {
		return NoFile, &os.PathError{Op: "open", Path: d.join(name), Err: err}
	}
	n, err := winName(name)
	if err != nil {
		return NoFile, &os.PathError{Op: "open", Path: d.join(name), Err: err}
	}
	h, err := ntOpenAt(d.h, n, o.access, ntFileAttributeNormal, o.share, o.disposition, o.options)
	if err != nil {
		return NoFile, &os.PathError{Op: "open", Path: d.join(name), Err: err}
	}
	if flag&Create == 0 {
		if h, err = refuseSurrogate(h, func() (windows.Handle, error) {
			return ntOpenAt(d.h, n, o.access, ntFileAttributeNormal, o.share, o.disposition, o.options&^ntOpenReparsePoint)
		}); err != nil {
			return NoFile, &os.PathError{Op: "open", Path: d.join(name), Err: err}
		}
	}
	return newFile(h, false, flag&Overlapped != 0), nil
}

func newFile(h windows.Handle, dev, overlapped bool) File {
	return File{h: h, x: &fileState{dev: dev, overlapped: overlapped}}
}

// refuseSurrogate looks at a handle opened on a reparse point itself: a
// symlink or junction is closed and refused; another kind (deduplicated,
// cloud or compressed files) is opened again through reopen, so its data is
// read, and kept only if it is the same file.
func refuseSurrogate(h windows.Handle, reopen func() (windows.Handle, error)) (windows.Handle, error) {
	attrs, tag, err := attributeTag(h)
	if err != nil {
		windows.CloseHandle(h)
		return 0, err
	}
	if attrs&windows.FILE_ATTRIBUTE_REPARSE_POINT == 0 {
		return h, nil
	}
	if tag&nameSurrogate != 0 {
		windows.CloseHandle(h)
		return 0, errSymlink
	}
	want, err := entryOfHandle(h)
	windows.CloseHandle(h)
	if err != nil {
		return 0, err
	}
	h2, err := reopen()
	if err != nil {
		return 0, err
	}
	got, err := entryOfHandle(h2)
	if err != nil || !got.ID.Same(want.ID) {
		windows.CloseHandle(h2)
		return 0, errors.New("changed while it was opened")
	}
	return h2, nil
}

// attributeTag is the handle's attributes and, for a reparse point, its tag.
func attributeTag(h windows.Handle) (attrs, tag uint32, err error) {
	var ti struct{ FileAttributes, ReparseTag uint32 }
	if err := windows.GetFileInformationByHandleEx(h, windows.FileAttributeTagInfo, (*byte)(unsafe.Pointer(&ti)), uint32(unsafe.Sizeof(ti))); err == nil {
		return ti.FileAttributes, ti.ReparseTag, nil
	}
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return 0, 0, err
	}
	if info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		// No tag to tell the kinds apart: take it for a symlink.
		return info.FileAttributes, nameSurrogate, nil
	}
	return info.FileAttributes, 0, nil
}

// OpenFile opens a file or device the user named by path (a block target):
// reparse points on the way are followed, since the user named it; with
// NoFollow one at the last component that is a symlink or junction is
// refused. \\.\PhysicalDriveN opens the raw disk.
func OpenFile(path string, flag Flag) (File, error) {
	o, err := winOpenOf(flag)
	if err != nil {
		return NoFile, &os.PathError{Op: "open", Path: path, Err: err}
	}
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return NoFile, &os.PathError{Op: "open", Path: path, Err: err}
	}
	dev := IsPhysicalDrive(path)
	flags := o.win32Flags
	if flag&NoFollow != 0 && !dev {
		flags |= win32FlagOpenReparsePoint
	}
	open := func(flags uint32) (windows.Handle, error) {
		return windows.CreateFile(p, o.access, o.share, nil, o.win32Disposition, flags, 0)
	}
	h, err := open(flags)
	if err != nil {
		return NoFile, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if flags&win32FlagOpenReparsePoint != 0 && flag&Create == 0 {
		if h, err = refuseSurrogate(h, func() (windows.Handle, error) { return open(flags &^ win32FlagOpenReparsePoint) }); err != nil {
			return NoFile, &os.PathError{Op: "open", Path: path, Err: err}
		}
	}
	return newFile(h, dev, flag&Overlapped != 0), nil
}

// Lstat describes name in d without following a symlink.
func (d Dir) Lstat(name []byte) (Entry, error) {
	n, err := winName(name)
	if err != nil {
		return Entry{}, &os.PathError{Op: "lstat", Path: d.join(name), Err: err}
	}
	h, err := ntOpenAt(d.h, n, windows.FILE_READ_ATTRIBUTES|windows.SYNCHRONIZE, 0, shareAll, ntFileOpen,
		ntOpenReparsePoint|ntSynchronousIONonalert|ntOpenForBackupIntent)
	if err != nil {
		return Entry{}, &os.PathError{Op: "lstat", Path: d.join(name), Err: err}
	}
	defer windows.CloseHandle(h)
	e, err := entryOfHandle(h)
	if err != nil {
		return Entry{}, &os.PathError{Op: "lstat", Path: d.join(name), Err: err}
	}
	return e, nil
}

// entryOfHandle describes an open file or directory: the volume serial and
// the 64-bit file ID are its identity. No birth time is added: an NTFS file
// ID carries the MFT record's sequence number, which changes when the
// record is reused, so a later file does not get an earlier one's ID; and
// Wine reports a creation time that moves with the file's status change
// time, which would make a directory look replaced once files were made in
// it.
func entryOfHandle(h windows.Handle) (Entry, error) {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return Entry{}, err
	}
	e := Entry{
		ID:    Identity{Dev: uint64(info.VolumeSerialNumber), Ino: uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow)},
		Dir:   info.FileAttributes&windows.FILE_ATTRIBUTE_DIRECTORY != 0,
		Size:  int64(info.FileSizeHigh)<<32 | int64(info.FileSizeLow),
		UID:   -1,
		Nlink: uint64(info.NumberOfLinks),
		Mode:  0o666,
	}
	if e.Dir {
		e.Mode = 0o777
	}
	if info.FileAttributes&windows.FILE_ATTRIBUTE_READONLY != 0 {
		e.Mode &^= 0o222
	}
	if info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		_, tag, err := attributeTag(h)
		e.Link = err != nil || tag&nameSurrogate != 0
	}
	e.Reg = !e.Dir && !e.Link
	return e, nil
}

// Identity is the directory's own identity.
func (d Dir) Identity() (Identity, error) {
	e, err := entryOfHandle(d.h)
	if err != nil {
		return Identity{}, &os.PathError{Op: "stat", Path: d.path, Err: err}
	}
	return e.ID, nil
}

// Stat describes the open file. A raw disk is a device: its identity is
// its disk number, its size the disk's length.
func (f File) Stat() (Entry, error) {
	if f.x != nil && f.x.dev {
		return deviceEntry(f.h)
	}
	return entryOfHandle(f.h)
}

// Truncate sets the file's size.
func (f File) Truncate(size int64) error { return windows.Ftruncate(f.h, size) }

// Mkdir makes the directory name in d.
func (d Dir) Mkdir(name []byte, _ uint32) error {
	n, err := winName(name)
	if err == nil {
		var h windows.Handle
		h, err = ntOpenAt(d.h, n, windows.FILE_LIST_DIRECTORY|windows.SYNCHRONIZE, ntFileAttributeNormal, shareAll, ntFileCreate,
			ntDirectoryFile|ntSynchronousIONonalert|ntOpenReparsePoint)
		if err == nil {
			windows.CloseHandle(h)
		}
	}
	if err != nil {
		return &os.PathError{Op: "mkdir", Path: d.join(name), Err: err}
	}
	return nil
}

// OpenSubdir opens the directory name in d; a symlink or junction there is
// refused.
func (d Dir) OpenSubdir(name []byte) (Dir, error) {
	n, err := winName(name)
	if err != nil {
		return Dir{}, &os.PathError{Op: "open", Path: d.join(name), Err: err}
	}
	open := func(access uint32) (windows.Handle, error) {
		return ntOpenAt(d.h, n, access, 0, shareAll, ntFileOpen, ntDirectoryFile|ntSynchronousIONonalert|ntOpenReparsePoint|ntOpenForBackupIntent)
	}
	writable := true
	h, err := open(dirWriteAccess)
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		writable = false
		h, err = open(dirReadAccess)
	}
	if err == nil {
		var attrs uint32
		if attrs, _, err = attributeTag(h); err == nil && attrs&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
			err = errSymlink
		}
		if err != nil {
			windows.CloseHandle(h)
		}
	}
	if err != nil {
		return Dir{}, &os.PathError{Op: "open", Path: d.join(name), Err: err}
	}
	return Dir{h: h, path: d.join(name), writable: writable}, nil
}

// fileDispositionInformationEx is FILE_DISPOSITION_INFORMATION_EX's flags:
// delete, with POSIX semantics (the name goes at once, even while another
// handle is open), whatever the read-only attribute says.
const (
	fileDispositionInformation   = 13
	fileDispositionInformationEx = 64
	dispositionDelete            = 0x1
	dispositionPOSIX             = 0x2
	dispositionIgnoreReadonly    = 0x10
	fileRenameInformation        = 10
	fileLinkInformation          = 11
)

// Remove removes the file or empty directory name in d, never what a
// symlink or junction there points at.
func (d Dir) Remove(name []byte) error {
	if err := d.remove(name); err != nil {
		return &os.PathError{Op: "remove", Path: d.join(name), Err: err}
	}
	return nil
}

func (d Dir) remove(name []byte) error {
	n, err := winName(name)
	if err != nil {
		return err
	}
	h, err := ntOpenAt(d.h, n, windows.DELETE|windows.FILE_READ_ATTRIBUTES|windows.SYNCHRONIZE, 0, shareAll, ntFileOpen,
		ntOpenReparsePoint|ntSynchronousIONonalert|ntOpenForBackupIntent)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	for waited := time.Duration(0); ; waited += pendingPoll {
		err := setDeleteDisposition(h)
		if s, ok := err.(windows.NTStatus); !ok || s != windows.STATUS_DIRECTORY_NOT_EMPTY || waited >= pendingWait {
			return ntError(err)
		}
		time.Sleep(pendingPoll)
	}
}

// pendingWait bounds how long the removal of a directory that is not
// empty tries again, for entries deleted but still open elsewhere, which
// go when that handle closes; pendingPoll is how often. Windows marks such
// an entry DeletePending, but Wine does not (FileStandardInformation says
// 0 and an open succeeds), so every directory not empty waits this long
// before its removal fails, as the retries of .NET's Directory.Delete and
// Rust's remove_dir_all do. clyde removes only directories it has
// emptied, so the wait costs a failure that would come anyway.
const (
	pendingWait = 2 * time.Second
	pendingPoll = 20 * time.Millisecond
)

// setDeleteDisposition marks h's file for deletion: POSIX semantics where
// the filesystem has them (the name goes at once), else the delete-on-close
// disposition (older Windows, FAT and Wine), under which a deleted file
// keeps its name, "delete pending", until every handle to it is closed: a
// directory holding one is not empty yet. Another clyde reading this run's
// marker (rundir.Live, as a run refused by the run lock does to name its
// holder) holds such a handle for a moment; removing the private directory
// in that moment failed and left it behind (issue 20, case 16).
func setDeleteDisposition(h windows.Handle) error {
	var iosb windows.IO_STATUS_BLOCK
	ex := uint32(dispositionDelete | dispositionPOSIX | dispositionIgnoreReadonly)
	err := windows.NtSetInformationFile(h, &iosb, (*byte)(unsafe.Pointer(&ex)), 4, fileDispositionInformationEx)
	if s, ok := err.(windows.NTStatus); err == nil || ok && s == windows.STATUS_DIRECTORY_NOT_EMPTY {
		return err
	}
	del := uint32(1) // FILE_DISPOSITION_INFORMATION.DeleteFile, a BOOLEAN
	return windows.NtSetInformationFile(h, &iosb, (*byte)(unsafe.Pointer(&del)), 4, fileDispositionInformation)
}

// setName is NtSetInformationFile with FILE_RENAME_INFORMATION or
// FILE_LINK_INFORMATION (one layout): newName relative to d.
func (d Dir) setName(h windows.Handle, newName string, replace bool, class uint32) error {
	u, err := windows.UTF16FromString(newName)
	if err != nil {
		return err
	}
	u = u[:len(u)-1]
	// ULONG Flags (or BOOLEAN ReplaceIfExists), HANDLE RootDirectory,
	// ULONG FileNameLength, WCHAR FileName[].
	const nameOff = unsafe.Sizeof(uintptr(0)) + unsafe.Sizeof(windows.Handle(0)) + 4
	buf := make([]byte, nameOff+uintptr(len(u))*2+2)
	if replace {
		buf[0] = 1
	}
	*(*windows.Handle)(unsafe.Pointer(&buf[unsafe.Sizeof(uintptr(0))])) = d.h
	*(*uint32)(unsafe.Pointer(&buf[nameOff-4])) = uint32(len(u) * 2)
	copy(unsafe.Slice((*uint16)(unsafe.Pointer(&buf[nameOff])), len(u)), u)
	var iosb windows.IO_STATUS_BLOCK
	if err := windows.NtSetInformationFile(h, &iosb, &buf[0], uint32(len(buf)), class); err != nil {
		return ntError(err)
	}
	return nil
}

// Rename renames oldName to newName within d, replacing newName.
func (d Dir) Rename(oldName, newName []byte) error {
	err := func() error {
		o, err := winName(oldName)
		if err != nil {
			return err
		}
		n, err := winName(newName)
		if err != nil {
			return err
		}
		h, err := ntOpenAt(d.h, o, windows.DELETE|windows.SYNCHRONIZE, 0, shareAll, ntFileOpen,
			ntOpenReparsePoint|ntSynchronousIONonalert|ntOpenForBackupIntent)
		if err != nil {
			return err
		}
		defer windows.CloseHandle(h)
		return d.setName(h, n, true, fileRenameInformation)
	}()
	if err != nil {
		return fmt.Errorf("rename %s to %s: %w", d.join(oldName), nameString(newName), err)
	}
	return nil
}

// Sync flushes the directory (FlushFileBuffers, which needs a handle with
// write access: the Dir's own, or the directory opened again through it).
func (d Dir) Sync() error {
	if d.writable {
		return windows.FlushFileBuffers(d.h)
	}
	h, err := ntOpenAt(d.h, "", dirWriteAccess, 0, shareAll, ntFileOpen, ntDirectoryFile|ntSynchronousIONonalert|ntOpenForBackupIntent)
	if err != nil {
		return &os.PathError{Op: "flush", Path: d.path, Err: err}
	}
	defer windows.CloseHandle(h)
	return windows.FlushFileBuffers(h)
}

// SyncFSMethod is what SyncFS does, for results.
const SyncFSMethod = "FlushFileBuffers on the volume"

// SyncFS flushes the whole volume the directory is on (FlushFileBuffers on
// the volume's handle: what syncfs does on Linux), which Windows allows
// administrators only. Where the volume cannot be opened the error wraps
// result.ErrNotSupported and says why; the caller then flushes the files
// and directories it wrote (see fsbench).
func (d Dir) SyncFS() error {
	vol, err := volumeOf(d.h)
	if err != nil {
		return fmt.Errorf("the volume of %s is unknown (%v): %w", d.path, err, result.ErrNotSupported)
	}
	p, _ := windows.UTF16PtrFromString(vol)
	h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil,
		windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		return fmt.Errorf("volume %s cannot be opened to flush it, which needs an administrator (%v): %w", vol, err, result.ErrNotSupported)
	}
	defer windows.CloseHandle(h)
	if err := windows.FlushFileBuffers(h); err != nil {
		if errors.Is(err, windows.ERROR_INVALID_FUNCTION) {
			// The volume's driver has no flush (Wine's volumes among them).
			return fmt.Errorf("volume %s has no flush (%v): %w", vol, err, result.ErrNotSupported)
		}
		return fmt.Errorf("flush volume %s: %w", vol, err)
	}
	return nil
}

// volumeOf is the volume device (\\?\Volume{GUID}) holding an open handle.
func volumeOf(h windows.Handle) (string, error) {
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n, err := windows.GetFinalPathNameByHandle(h, &buf[0], uint32(len(buf)), volumeNameGUID)
	if err != nil {
		return "", err
	}
	if int(n) > len(buf) {
		return "", errors.New("path too long")
	}
	s := windows.UTF16ToString(buf[:n])
	const prefix = `\\?\Volume{`
	if !strings.HasPrefix(s, prefix) {
		return "", fmt.Errorf("no volume GUID in %q", s)
	}
	end := strings.IndexByte(s[len(prefix):], '}')
	if end < 0 {
		return "", fmt.Errorf("no volume GUID in %q", s)
	}
	return s[:len(prefix)+end+1], nil
}

// ReadNames lists every entry of d but "." and "..", from the start
// (NtQueryDirectoryFile with RestartScan on the first call).
func (d Dir) ReadNames() ([]string, error) {
	const fileDirectoryInformation = 1
	buf := make([]byte, 64<<10)
	var names []string
	restart := uintptr(1)
	for {
		var iosb windows.IO_STATUS_BLOCK
		r, _, _ := procNtQueryDirectoryFile.Call(uintptr(d.h), 0, 0, 0, uintptr(unsafe.Pointer(&iosb)),
			uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), fileDirectoryInformation, 0, 0, restart)
		restart = 0
		switch st := windows.NTStatus(r); st {
		case windows.STATUS_SUCCESS:
		case windows.STATUS_NO_MORE_FILES:
			return names, nil
		default:
			return names, &os.PathError{Op: "readdir", Path: d.path, Err: ntError(st)}
		}
		// FILE_DIRECTORY_INFORMATION: NextEntryOffset, FileIndex, six
		// LARGE_INTEGERs, FileAttributes, FileNameLength, FileName.
		for off := 0; off < int(iosb.Information); {
			rec := buf[off:]
			next := *(*uint32)(unsafe.Pointer(&rec[0]))
			nameLen := *(*uint32)(unsafe.Pointer(&rec[60]))
			name := windows.UTF16ToString(unsafe.Slice((*uint16)(unsafe.Pointer(&rec[64])), nameLen/2))
			if name != "." && name != ".." {
				names = append(names, name)
			}
			if next == 0 {
				break
			}
			off += int(next)
		}
	}
}

// Small-file calls: the same as the ordinary ones here.
func (d Dir) CreateSmall(name []byte) (File, error) {
	return d.Open(name, WriteOnly|Create, 0o600)
}

// OpenSmall opens a small file for reading. Like bonnie++'s open() it
// follows a symlink: the symlink test reads file 0 through its links, which
// all point inside the test directory.
func (d Dir) OpenSmall(name []byte) (File, error) {
	n, err := winName(name)
	if err != nil {
		return NoFile, err
	}
	h, err := ntOpenAt(d.h, n, ntFileGenericRead, 0, shareAll, ntFileOpen, ntNonDirectoryFile|ntSynchronousIONonalert)
	if err != nil {
		return NoFile, &os.PathError{Op: "open", Path: d.join(name), Err: err}
	}
	return newFile(h, false, false), nil
}
func (d Dir) OpenSubdirSmall(name []byte) (Dir, error) { return d.OpenSubdir(name) }
func (d Dir) MkdirSmall(name []byte) error             { return d.Mkdir(name, 0o700) }
func (d Dir) UnlinkSmall(name []byte) error            { return d.Remove(name) }
func (d Dir) RmdirSmall(name []byte) error             { return d.Remove(name) }

// LinkSmall makes newName a hard link to oldName, both in d
// (FILE_LINK_INFORMATION relative to d's handle).
func (d Dir) LinkSmall(oldName, newName []byte) error {
	err := func() error {
		o, err := winName(oldName)
		if err != nil {
			return err
		}
		n, err := winName(newName)
		if err != nil {
			return err
		}
		h, err := ntOpenAt(d.h, o, windows.FILE_WRITE_ATTRIBUTES|windows.SYNCHRONIZE, 0, shareAll, ntFileOpen,
			ntOpenReparsePoint|ntSynchronousIONonalert|ntNonDirectoryFile)
		if err != nil {
			return err
		}
		defer windows.CloseHandle(h)
		return d.setName(h, n, false, fileLinkInformation)
	}()
	if err != nil {
		return &os.LinkError{Op: "link", Old: d.join(oldName), New: d.join(newName), Err: err}
	}
	return nil
}

// SymlinkSmall makes newName a symlink to target. It is the one call by full
// path: d's path must still lead to d itself (same file ID), so a directory
// swapped for another one mid-run gets no link. Windows lets only
// administrators and, in developer mode, everyone create symlinks.
func (d Dir) SymlinkSmall(target, newName []byte) error {
	path, err := d.checkedPath(newName)
	if err != nil {
		return err
	}
	t := strings.ReplaceAll(nameString(target), "/", `\`)
	p, _ := windows.UTF16PtrFromString(path)
	tp, err := windows.UTF16PtrFromString(t)
	if err != nil {
		return err
	}
	const allowUnprivileged = 0x2 // SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE
	err = windows.CreateSymbolicLink(p, tp, allowUnprivileged)
	if errors.Is(err, windows.ERROR_INVALID_PARAMETER) {
		err = windows.CreateSymbolicLink(p, tp, 0) // before Windows 10 1703
	}
	if err != nil {
		return &os.LinkError{Op: "symlink", Old: t, New: path, Err: err}
	}
	return nil
}

// checkedPath is name's full path in d, once d's path has been checked to
// still lead to d.
func (d Dir) checkedPath(name []byte) (string, error) {
	n, err := winName(name)
	if err != nil {
		return "", err
	}
	want, err := d.Identity()
	if err != nil {
		return "", err
	}
	again, err := OpenDir(d.path)
	if err != nil {
		return "", err
	}
	got, err := again.Identity()
	again.Close()
	if err != nil {
		return "", err
	}
	if !got.Same(want) {
		return "", fmt.Errorf("%s is no longer the directory clyde opened (replaced during the run); nothing was created by path", d.path)
	}
	return d.path + `\` + n, nil
}

// StatBuf is unused here.
type StatBuf struct{}

// StatSmall follows symlinks, as bonnie++'s stat() does; it returns the size.
func (d Dir) StatSmall(name []byte, _ *StatBuf) (int64, error) {
	n, err := winName(name)
	if err != nil {
		return 0, err
	}
	h, err := ntOpenAt(d.h, n, windows.FILE_READ_ATTRIBUTES|windows.SYNCHRONIZE, 0, shareAll, ntFileOpen, ntSynchronousIONonalert|ntOpenForBackupIntent)
	if err != nil {
		return 0, &os.PathError{Op: "stat", Path: d.join(name), Err: err}
	}
	defer windows.CloseHandle(h)
	e, err := entryOfHandle(h)
	return e.Size, err
}

// Valid says whether f holds a handle.
func (f File) Valid() bool { return f.h != 0 }

// Fd is the handle as a number.
func (f File) Fd() int { return int(f.h) }

// Handle is the handle, for the engines that issue their own calls on it
// (windowsaio).
func (f File) Handle() windows.Handle { return f.h }

// eofIsNil: a read at or past the end is 0 bytes, as on Unix.
func eofIsNil(n uint32, err error) (int, error) {
	if err == windows.ERROR_HANDLE_EOF || err == windows.ERROR_BROKEN_PIPE {
		return int(n), nil
	}
	return int(n), err
}

func (f File) Write(b []byte) (int, error) {
	var n uint32
	err := windows.WriteFile(f.h, b, &n, nil)
	return int(n), err
}

func (f File) Read(b []byte) (int, error) {
	var n uint32
	return eofIsNil(n, windows.ReadFile(f.h, b, &n, nil))
}

// Pread reads at off. On a synchronous handle a positioned read also moves
// the file position (Windows has no pread); nothing in clyde mixes the two
// on one File.
func (f File) Pread(b []byte, off int64) (int, error) {
	ov := f.positioned(off)
	var n uint32
	err := windows.ReadFile(f.h, b, &n, ov)
	if f.x.overlapped {
		if err == windows.ERROR_IO_PENDING {
			err = windows.GetOverlappedResult(f.h, ov, &n, true)
		}
		windows.CloseHandle(ov.HEvent &^ 1)
	}
	return eofIsNil(n, err)
}

func (f File) Pwrite(b []byte, off int64) (int, error) {
	ov := f.positioned(off)
	var n uint32
	err := windows.WriteFile(f.h, b, &n, ov)
	if f.x.overlapped {
		if err == windows.ERROR_IO_PENDING {
			err = windows.GetOverlappedResult(f.h, ov, &n, true)
		}
		windows.CloseHandle(ov.HEvent &^ 1)
	}
	return int(n), err
}

// positioned is the File's OVERLAPPED set to off. On an overlapped handle
// it gets an event with its low bit set, so the completion is not also
// queued to a completion port the handle may belong to.
func (f File) positioned(off int64) *windows.Overlapped {
	ov := &f.x.ov
	*ov = windows.Overlapped{Offset: uint32(off), OffsetHigh: uint32(off >> 32)}
	if f.x.overlapped {
		ev, _ := windows.CreateEvent(nil, 1, 0, nil)
		ov.HEvent = ev | 1
	}
	return ov
}

// Seek moves the file position. The end of a raw disk is its length.
func (f File) Seek(off int64, whence int) (int64, error) {
	if whence == io.SeekEnd && f.x != nil && f.x.dev {
		size, err := diskLength(f.h)
		if err != nil {
			return 0, err
		}
		return windows.Seek(f.h, size+off, io.SeekStart)
	}
	return windows.Seek(f.h, off, whence)
}

// Sync is FlushFileBuffers: the file's data and metadata written back and
// the device's write cache flushed.
func (f File) Sync() error { return windows.FlushFileBuffers(f.h) }

// Close closes the handle.
func (f File) Close() error                      { return windows.CloseHandle(f.h) }
func (f File) WriteByteRaw(b *byte) (int, error) { return f.Write(unsafeSlice(b)) }
func (f File) ReadByteRaw(b *byte) (int, error)  { return f.Read(unsafeSlice(b)) }
func (f File) WriteSmall(b []byte) (int, error)  { return f.Write(b) }
func (f File) ReadSmall(b []byte) (int, error)   { return f.Read(b) }
func (f File) CloseSmall() error                 { return f.Close() }
