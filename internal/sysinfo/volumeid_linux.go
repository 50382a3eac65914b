//go:build linux

package sysinfo

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// devNum is a block device's number, major:minor.
type devNum struct{ major, minor uint32 }

// deviceSuperblockID reads the UUID (and creation time) of the filesystem
// on one of the block devices devs, the mount's own: the mount's source is
// read when it is one of them (it is the name the kernel or the user gave
// it), else udev's /dev/block/M:m name. Each candidate is opened
// read-only, without following a symlink and without blocking, and read
// only when fstat says it is one of devs. Empty when none can be read
// (not root, no such node here).
func deviceSuperblockID(source, fstype string, devs []devNum) superblockID {
	candidates := []string{}
	if strings.HasPrefix(source, "/dev/") {
		candidates = append(candidates, source)
	}
	for _, d := range devs {
		candidates = append(candidates, fmt.Sprintf("/dev/block/%d:%d", d.major, d.minor))
	}
	for _, p := range candidates {
		if id := readDeviceSuperblock(p, fstype, devs); id.UUID != "" {
			return id
		}
	}
	return superblockID{}
}

func readDeviceSuperblock(path, fstype string, devs []devNum) superblockID {
	flags := unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC
	if !strings.HasPrefix(path, "/dev/block/") {
		flags |= unix.O_NOFOLLOW // udev's /dev/block names are symlinks; the fstat below checks them
	}
	fd, err := unix.Open(path, flags, 0)
	if err != nil {
		return superblockID{}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFBLK ||
		!slices.Contains(devs, devNum{unix.Major(uint64(st.Rdev)), unix.Minor(uint64(st.Rdev))}) {
		return superblockID{}
	}
	return readSuperblockID(fstype, f)
}
