//go:build linux

package sysinfo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/result"
)

// FilesystemOf describes the filesystem holding path as the kernel mounted
// it, and the disk under it where sysfs tells: results from different
// filesystems or devices must never be compared unknowingly. Device details
// that cannot be read are left empty; only failing to resolve path or read
// the mount table is an error. Path in the result is absolute with symlinks
// resolved, since that is the directory actually measured.
func FilesystemOf(path string) (result.Filesystem, error) {
	fs := result.Filesystem{Path: path}
	resolved, err := resolvePath(path)
	if err != nil {
		return fs, err
	}
	fs.Path = resolved
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return fs, fmt.Errorf("read mount table: %w", err)
	}
	mounts, err := parseMountInfo(f)
	f.Close()
	if err != nil {
		return fs, err
	}
	m, ok := mountFor(mounts, resolved)
	if !ok {
		return fs, fmt.Errorf("find mount of %s: not in /proc/self/mountinfo", resolved)
	}
	fs.Type = m.FSType
	fs.MountPoint = m.MountPoint
	fs.MountOptions = joinOptions(m.MountOptions, m.SuperOptions)
	fs.Source = m.Source
	notes := mountNotes(m)

	major, minor := blockDevOf(m)
	if major != 0 {
		dev := describeBlockDevice("/sys", major, minor)
		fs.DeviceModel, fs.DeviceSerial = dev.Model, dev.Serial
		fs.UUID = deviceVolumeID(m.Source, m.FSType, major, minor)
		notes = append(notes, dev.Notes...)
		if m.FSType == "ext4" && ext4NoJournal("/sys", major, minor) {
			fs.NoJournal = true
			notes = append(notes, noJournalNote)
		}
	}
	fs.Note = strings.Join(notes, "; ")
	return fs, nil
}

// resolvePath makes path absolute with symlinks resolved, because mountinfo
// lists real mount points and a symlink may cross to another filesystem.
func resolvePath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	return resolved, nil
}

// blockDevOf is the block device number behind a mount. Mountinfo's st_dev is
// it for most filesystems, but btrfs (and others with anonymous st_dev) show
// 0:N, so a /dev source is then asked directly.
func blockDevOf(m mountInfo) (major, minor uint32) {
	if m.Major != 0 {
		return m.Major, m.Minor
	}
	if !strings.HasPrefix(m.Source, "/dev/") {
		return 0, 0
	}
	var st unix.Stat_t
	if err := unix.Stat(m.Source, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return 0, 0
	}
	return unix.Major(uint64(st.Rdev)), unix.Minor(uint64(st.Rdev))
}
