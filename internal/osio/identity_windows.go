//go:build windows

package osio

import (
	"os"

	"golang.org/x/sys/windows"
)

// identityOf is the volume serial number and file index: what makes two
// handles the same file on NTFS.
func identityOf(f *os.File) (Identity, error) {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		return Identity{}, err
	}
	return Identity{Dev: uint64(info.VolumeSerialNumber), Ino: uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow),
		Birth: info.CreationTime.Nanoseconds()}, nil
}
