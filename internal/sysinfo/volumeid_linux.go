//go:build linux

package sysinfo

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// deviceVolumeID reads the UUID of the filesystem on the block device
// major:minor, mounted from source: source is opened read-only, without
// following a symlink and without blocking, and read only when it is that
// device. "" when it cannot be read (not root, no such node here).
func deviceVolumeID(source, fstype string, major, minor uint32) string {
	if !strings.HasPrefix(source, "/dev/") {
		return ""
	}
	fd, err := unix.Open(source, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return ""
	}
	f := os.NewFile(uintptr(fd), source)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFBLK ||
		unix.Major(uint64(st.Rdev)) != major || unix.Minor(uint64(st.Rdev)) != minor {
		return ""
	}
	return volumeID(fstype, f)
}
