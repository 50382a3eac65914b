//go:build windows

package osio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"
)

// IOCTL codes (winioctl.h) and query classes clyde uses.
const (
	ioctlStorageQueryProperty       = 0x002D1400
	ioctlStorageGetDeviceNumber     = 0x002D1080
	ioctlDiskGetLengthInfo          = 0x0007405C
	ioctlDiskGetDriveLayoutEx       = 0x00070050
	ioctlVolumeGetVolumeDiskExtents = 0x00560000
	storageAccessAlignmentProperty  = 6
	fileFsSectorSizeInformation     = 11
)

// deviceEntry describes a raw disk: its number is its identity (device
// type and disk number never change while the handle is open), its length
// its size.
func deviceEntry(h windows.Handle) (Entry, error) {
	var dn struct{ DeviceType, DeviceNumber, PartitionNumber uint32 }
	var n uint32
	if err := windows.DeviceIoControl(h, ioctlStorageGetDeviceNumber, nil, 0, (*byte)(unsafe.Pointer(&dn)), uint32(unsafe.Sizeof(dn)), &n, nil); err != nil {
		return Entry{}, fmt.Errorf("IOCTL_STORAGE_GET_DEVICE_NUMBER: %w", err)
	}
	size, err := diskLength(h)
	if err != nil {
		return Entry{}, err
	}
	return Entry{ID: Identity{Dev: 1<<32 | uint64(dn.DeviceType), Ino: uint64(dn.DeviceNumber)<<32 | uint64(dn.PartitionNumber)},
		Dev: true, Size: size, UID: -1, Nlink: 1}, nil
}

// diskLength is IOCTL_DISK_GET_LENGTH_INFO: a raw disk has no end of file
// to seek to.
func diskLength(h windows.Handle) (int64, error) {
	var size int64
	var n uint32
	if err := windows.DeviceIoControl(h, ioctlDiskGetLengthInfo, nil, 0, (*byte)(unsafe.Pointer(&size)), 8, &n, nil); err != nil {
		return 0, fmt.Errorf("IOCTL_DISK_GET_LENGTH_INFO: %w", err)
	}
	return size, nil
}

// DiskNumber is the number of the disk f is open on (\\.\PhysicalDriveN).
func DiskNumber(f File) (int, error) {
	e, err := deviceEntry(f.h)
	if err != nil {
		return 0, err
	}
	return int(e.ID.Ino >> 32), nil
}

// DriveLayout reads the partition table of the raw disk f.
func DriveLayout(f File) (DiskLayout, error) {
	buf := make([]byte, layoutHeaderBytes+128*layoutEntryBytes)
	var n uint32
	if err := windows.DeviceIoControl(f.h, ioctlDiskGetDriveLayoutEx, nil, 0, &buf[0], uint32(len(buf)), &n, nil); err != nil {
		return DiskLayout{}, fmt.Errorf("IOCTL_DISK_GET_DRIVE_LAYOUT_EX: %w", err)
	}
	return ParseDriveLayout(buf[:n])
}

// VolumesOn lists the volumes with an extent on disk number disk, and the
// volumes whose extents could not be read (a caller that must be sure a
// disk holds no volume treats those as a reason to refuse).
func VolumesOn(disk int) (on, unknown []string, err error) {
	name := make([]uint16, windows.MAX_PATH+1)
	fh, err := windows.FindFirstVolume(&name[0], uint32(len(name)))
	if err != nil {
		return nil, nil, fmt.Errorf("list volumes (FindFirstVolume): %w", err)
	}
	defer windows.FindVolumeClose(fh)
	for {
		vol := strings.TrimSuffix(windows.UTF16ToString(name), `\`)
		switch disks, err := volumeDisks(vol); {
		case err != nil:
			unknown = append(unknown, fmt.Sprintf("%s (%v)", vol, err))
		default:
			for _, d := range disks {
				if d == disk {
					on = append(on, vol)
					break
				}
			}
		}
		if err := windows.FindNextVolume(fh, &name[0], uint32(len(name))); err != nil {
			if errors.Is(err, windows.ERROR_NO_MORE_FILES) {
				return on, unknown, nil
			}
			return on, unknown, fmt.Errorf("list volumes (FindNextVolume): %w", err)
		}
	}
}

// volumeDisks is the disks a volume has extents on. A volume that is no
// disk volume (a CD drive, a drive without media) has none.
func volumeDisks(vol string) ([]int, error) {
	p, _ := windows.UTF16PtrFromString(vol)
	h, err := windows.CreateFile(p, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(h)
	buf := make([]byte, 8+64*24)
	var n uint32
	if err := windows.DeviceIoControl(h, ioctlVolumeGetVolumeDiskExtents, nil, 0, &buf[0], uint32(len(buf)), &n, nil); err != nil {
		if errors.Is(err, windows.ERROR_INVALID_FUNCTION) || errors.Is(err, windows.ERROR_NOT_READY) {
			return nil, nil
		}
		return nil, err
	}
	// VOLUME_DISK_EXTENTS: NumberOfDiskExtents (and padding), then
	// DISK_EXTENT{DiskNumber (and padding), StartingOffset, ExtentLength}.
	count := int(binary.LittleEndian.Uint32(buf))
	var disks []int
	for i := 0; i < count && 8+(i+1)*24 <= int(n); i++ {
		disks = append(disks, int(binary.LittleEndian.Uint32(buf[8+i*24:])))
	}
	return disks, nil
}

// SectorSize reads the sector sizes under path: a raw disk, or the volume
// holding a file or directory. It asks FileFsSectorSizeInformation first
// (Windows 8 and later, no privilege), then IOCTL_STORAGE_QUERY_PROPERTY's
// access alignment on the volume or disk, then GetDiskFreeSpace's bytes per
// sector (logical only). A SectorInfo that is not Known means every source
// failed: callers then hold I/O to DefaultSectorAlign.
func SectorSize(path string) (SectorInfo, error) {
	if IsPhysicalDrive(path) {
		return storageAlignment(path)
	}
	if si, err := fsSectorSize(path); err == nil && si.Known() {
		return si, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return SectorInfo{}, err
	}
	p, _ := windows.UTF16PtrFromString(abs)
	root := make([]uint16, windows.MAX_PATH+1)
	if err := windows.GetVolumePathName(p, &root[0], uint32(len(root))); err != nil {
		return SectorInfo{}, fmt.Errorf("find the volume of %s: %w", abs, err)
	}
	vol := strings.TrimSuffix(windows.UTF16ToString(root), `\`)
	if len(vol) == 2 && vol[1] == ':' {
		if si, err := storageAlignment(`\\.\` + vol); err == nil && si.Known() {
			return si, nil
		}
	}
	var spc, bps, free, total uint32
	if r, _, err := procGetDiskFreeSpaceW.Call(uintptr(unsafe.Pointer(&root[0])), uintptr(unsafe.Pointer(&spc)), uintptr(unsafe.Pointer(&bps)),
		uintptr(unsafe.Pointer(&free)), uintptr(unsafe.Pointer(&total))); r == 0 {
		return SectorInfo{}, fmt.Errorf("sector size of %s (GetDiskFreeSpace): %w", vol, err)
	}
	return SectorInfo{Logical: bps, Source: "GetDiskFreeSpace"}, nil
}

// fsSectorSize is NtQueryVolumeInformationFile(FileFsSectorSizeInformation)
// on path opened for attributes only.
func fsSectorSize(path string) (SectorInfo, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return SectorInfo{}, err
	}
	h, err := windows.CreateFile(p, windows.FILE_READ_ATTRIBUTES, shareAll, nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return SectorInfo{}, err
	}
	defer windows.CloseHandle(h)
	// FILE_FS_SECTOR_SIZE_INFORMATION: LogicalBytesPerSector,
	// PhysicalBytesPerSectorForAtomicity, PhysicalBytesPerSectorForPerformance,
	// FileSystemEffectivePhysicalBytesPerSectorForAtomicity, Flags and two
	// offsets.
	var info [7]uint32
	var iosb windows.IO_STATUS_BLOCK
	r, _, _ := procNtQueryVolumeInformationFile.Call(uintptr(h), uintptr(unsafe.Pointer(&iosb)), uintptr(unsafe.Pointer(&info[0])),
		unsafe.Sizeof(info), fileFsSectorSizeInformation)
	if st := windows.NTStatus(r); st != windows.STATUS_SUCCESS {
		return SectorInfo{}, fmt.Errorf("FileFsSectorSizeInformation: %w", ntError(st))
	}
	return SectorInfo{Logical: info[0], Physical: info[2], Source: "FileFsSectorSizeInformation"}, nil
}

// storageAlignment is IOCTL_STORAGE_QUERY_PROPERTY's
// STORAGE_ACCESS_ALIGNMENT_DESCRIPTOR of a volume or disk device, which
// opens with no access rights for it.
func storageAlignment(dev string) (SectorInfo, error) {
	p, err := windows.UTF16PtrFromString(dev)
	if err != nil {
		return SectorInfo{}, err
	}
	h, err := windows.CreateFile(p, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		return SectorInfo{}, err
	}
	defer windows.CloseHandle(h)
	query := [3]uint32{storageAccessAlignmentProperty, 0, 0} // PropertyId, QueryType (standard), AdditionalParameters
	// Version, Size, BytesPerCacheLine, BytesOffsetForCacheAlignment,
	// BytesPerLogicalSector, BytesPerPhysicalSector,
	// BytesOffsetForSectorAlignment.
	var desc [7]uint32
	var n uint32
	if err := windows.DeviceIoControl(h, ioctlStorageQueryProperty, (*byte)(unsafe.Pointer(&query[0])), uint32(unsafe.Sizeof(query)),
		(*byte)(unsafe.Pointer(&desc[0])), uint32(unsafe.Sizeof(desc)), &n, nil); err != nil {
		return SectorInfo{}, fmt.Errorf("IOCTL_STORAGE_QUERY_PROPERTY(StorageAccessAlignmentProperty): %w", err)
	}
	if n < uint32(unsafe.Sizeof(desc)) {
		return SectorInfo{}, fmt.Errorf("IOCTL_STORAGE_QUERY_PROPERTY returned %d bytes", n)
	}
	return SectorInfo{Logical: desc[4], Physical: desc[5], Source: "IOCTL_STORAGE_QUERY_PROPERTY"}, nil
}
