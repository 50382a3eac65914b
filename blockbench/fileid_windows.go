//go:build windows

package blockbench

import (
	"os"

	"golang.org/x/sys/windows"
)

// identify reads the volume serial number and file index of an open handle:
// what Windows has for device and inode numbers.
func identify(f *os.File) (entryInfo, error) {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		return entryInfo{}, err
	}
	e := entryInfo{
		id: fileID{Dev: uint64(info.VolumeSerialNumber), Ino: uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow),
			Birth: info.CreationTime.Nanoseconds()},
		size: int64(info.FileSizeHigh)<<32 | int64(info.FileSizeLow),
	}
	switch {
	case info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0:
		e.kind = kindSymlink
	case info.FileAttributes&windows.FILE_ATTRIBUTE_DIRECTORY == 0:
		e.kind = kindRegular
	}
	return e, nil
}
