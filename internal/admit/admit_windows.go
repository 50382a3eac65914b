//go:build windows

package admit

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// Write applies the write rules to a Windows raw disk
// (\\.\PhysicalDriveN). Refused whatever the flags: a disk another program
// has open (the exclusive open, share mode 0, fails), one whose partition
// table holds a partition, or that carries a volume (see rawDiskInUse).
// Otherwise the write needs destroy. The exclusive handle is closed once
// the checks pass and a shared one kept for the run: Windows has no lock on
// a raw disk that lets clyde's own workers open it and nobody else, so the
// run is guarded by clyde's run lock on the disk (another clyde cannot
// start on it) and by the checks, not by the kernel.
func Write(given, resolved string, _ osio.File, e osio.Entry, destroy bool) (osio.File, error) {
	if !e.Dev {
		return osio.NoFile, fmt.Errorf("writing to existing file %s: the in-use checks (disk images, other writers) are Linux-only; "+
			"name a path that does not exist yet: %w", resolved, result.ErrNotSupported)
	}
	refuse := func(found, allow string) error {
		return &RefusedError{Path: resolved, Given: given, Kind: KindDevice, Found: found, Allow: allow}
	}
	f, err := osio.OpenFile(resolved, osio.ReadWrite|osio.Exclusive)
	switch {
	case errors.Is(err, windows.ERROR_SHARING_VIOLATION):
		return osio.NoFile, refuse("another program has it open (the exclusive open failed: sharing violation)", "")
	case errors.Is(err, windows.ERROR_ACCESS_DENIED):
		return osio.NoFile, result.Usagef("--filename", "writing to %s needs an administrator: %v", resolved, err)
	case err != nil:
		return osio.NoFile, fmt.Errorf("open %s exclusively: %w", resolved, err)
	}
	found, err := rawDiskHolds(f)
	f.Close()
	if err != nil {
		return osio.NoFile, fmt.Errorf("check %s before writing: %w", resolved, err)
	}
	if found != "" {
		return osio.NoFile, refuse(found, "")
	}
	if !destroy {
		return osio.NoFile, refuse("a disk with no partitions or volumes", "--destroy-data")
	}
	guard, err := osio.OpenFile(resolved, osio.ReadWrite)
	if err != nil {
		return osio.NoFile, fmt.Errorf("open %s: %w", resolved, err)
	}
	return guard, nil
}

// rawDiskHolds reads the disk's partition table and the volumes on it.
func rawDiskHolds(f osio.File) (string, error) {
	disk, err := osio.DiskNumber(f)
	if err != nil {
		return "", err
	}
	layout, err := osio.DriveLayout(f)
	if err != nil {
		return "", err
	}
	vols, unknown, err := osio.VolumesOn(disk)
	if err != nil {
		return "", err
	}
	return rawDiskInUse(disk, layout, vols, unknown), nil
}

// NewFile: Windows names devices outside the file system (\\.\), so no
// directory is a device directory.
func NewFile(given, dir string) error { return nil }
