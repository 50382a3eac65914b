//go:build windows

package sysinfo

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sys/windows"

	"github.com/clydebench/clyde/result"
)

// FilesystemOf describes the volume holding path (NTFS, ReFS, FAT32...), so
// results from different filesystems are never compared unknowingly. Device
// model and serial are not looked up on this platform.
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

	fsName := make([]uint16, windows.MAX_PATH+1)
	var serial, maxComponent, flags uint32
	if err := windows.GetVolumeInformation(&volPath[0], nil, 0, &serial, &maxComponent, &flags,
		&fsName[0], uint32(len(fsName))); err != nil {
		return fs, fmt.Errorf("read volume information of %s: %w", fs.MountPoint, err)
	}
	fs.Type = windows.UTF16ToString(fsName)
	fs.MountOptions = volumeFlags(flags)

	// The volume GUID path names the volume even when it has no letter
	// or is mounted in a folder; it is this platform's mount source.
	guid := make([]uint16, 64)
	if windows.GetVolumeNameForVolumeMountPoint(&volPath[0], &guid[0], uint32(len(guid))) == nil {
		fs.Source = windows.UTF16ToString(guid)
	}
	return fs, nil
}

// volumeFlags spells the volume flags that change benchmark results.
func volumeFlags(flags uint32) string {
	return spellFlags(uint64(flags), windows.FILE_READ_ONLY_VOLUME, []flagName{
		{windows.FILE_VOLUME_IS_COMPRESSED, "compressed"},
		{windows.FILE_SUPPORTS_ENCRYPTION, "encryption"},
		{windows.FILE_SUPPORTS_SPARSE_FILES, "sparse"},
	})
}
