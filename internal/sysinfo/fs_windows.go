//go:build windows

package sysinfo

import (
	"fmt"
	"path/filepath"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/clydebench/clyde/result"
)

var procGetDiskFreeSpaceW = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetDiskFreeSpaceW")

// FilesystemOf describes the volume holding path (NTFS, ReFS, FAT32...), so
// results from different filesystems are never compared unknowingly: its
// file system and label (GetVolumeInformation), its allocation unit and
// sector size (GetDiskFreeSpace), since the cluster size changes what small
// files cost, and the disk's model where the storage stack reports it.
func FilesystemOf(path string) (result.Filesystem, error) {
	fs := result.Filesystem{Path: path}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fs, fmt.Errorf("resolve %s: %w", path, err)
	}
	fs.Path = abs
	p, err := windows.UTF16PtrFromString(abs)
	if err != nil {
		return fs, fmt.Errorf("resolve %s: %w", abs, err)
	}
	volPath := make([]uint16, windows.MAX_PATH+1)
	if err := windows.GetVolumePathName(p, &volPath[0], uint32(len(volPath))); err != nil {
		return fs, fmt.Errorf("find volume of %s: %w", abs, err)
	}
	fs.MountPoint = windows.UTF16ToString(volPath)

	label := make([]uint16, windows.MAX_PATH+1)
	fsName := make([]uint16, windows.MAX_PATH+1)
	var serial, maxComponent, flags uint32
	if err := windows.GetVolumeInformation(&volPath[0], &label[0], uint32(len(label)), &serial, &maxComponent, &flags,
		&fsName[0], uint32(len(fsName))); err != nil {
		return fs, fmt.Errorf("read volume information of %s: %w", fs.MountPoint, err)
	}
	fs.Type = windows.UTF16ToString(fsName)
	fs.VolumeName = windows.UTF16ToString(label)
	fs.MountOptions = volumeFlags(flags)

	var spc, bps, free, total uint32
	if r, _, _ := procGetDiskFreeSpaceW.Call(uintptr(unsafe.Pointer(&volPath[0])), uintptr(unsafe.Pointer(&spc)), uintptr(unsafe.Pointer(&bps)),
		uintptr(unsafe.Pointer(&free)), uintptr(unsafe.Pointer(&total))); r != 0 {
		fs.ClusterBytes, fs.SectorBytes = int64(spc)*int64(bps), int64(bps)
	}

	// The volume GUID path names the volume even when it has no letter
	// or is mounted in a folder; it is this platform's mount source.
	guid := make([]uint16, 64)
	if windows.GetVolumeNameForVolumeMountPoint(&volPath[0], &guid[0], uint32(len(guid))) == nil {
		fs.Source = windows.UTF16ToString(guid)
		fs.DeviceModel, fs.DeviceSerial = deviceModel(strings.TrimSuffix(fs.Source, `\`))
	}
	return fs, nil
}

// deviceModel is the vendor and product, and the serial, of the disk under
// a volume (IOCTL_STORAGE_QUERY_PROPERTY, StorageDeviceProperty), which the
// volume answers for its disk. Empty where the stack does not say.
func deviceModel(volume string) (model, serial string) {
	p, err := windows.UTF16PtrFromString(volume)
	if err != nil {
		return "", ""
	}
	h, err := windows.CreateFile(p, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		return "", ""
	}
	defer windows.CloseHandle(h)
	const ioctlStorageQueryProperty = 0x002D1400
	query := [3]uint32{0, 0, 0} // StorageDeviceProperty, PropertyStandardQuery
	buf := make([]byte, 1024)
	var n uint32
	if err := windows.DeviceIoControl(h, ioctlStorageQueryProperty, (*byte)(unsafe.Pointer(&query[0])), uint32(unsafe.Sizeof(query)),
		&buf[0], uint32(len(buf)), &n, nil); err != nil {
		return "", ""
	}
	return storageDescriptorStrings(buf[:n])
}

// volumeFlags spells the volume flags that change benchmark results.
func volumeFlags(flags uint32) string {
	return spellFlags(uint64(flags), windows.FILE_READ_ONLY_VOLUME, []flagName{
		{windows.FILE_VOLUME_IS_COMPRESSED, "compressed"},
		{windows.FILE_SUPPORTS_ENCRYPTION, "encryption"},
		{windows.FILE_SUPPORTS_SPARSE_FILES, "sparse"},
	})
}
