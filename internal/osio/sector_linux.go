//go:build linux

package osio

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/result"
)

// SectorSize is the alignment O_DIRECT holds a read or write on path to:
// what statx(STATX_DIOALIGN) says for a file or block device (Linux 6.1+;
// the offset alignment, which sizes must keep too), and otherwise the
// logical block size of the block device beneath (a directory, where a new
// file will be made, or an older kernel). ErrNotSupported when neither can
// be read (a filesystem on no block device, such as tmpfs), so the caller
// keeps its own rule.
func SectorSize(path string) (SectorInfo, error) {
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, 0, unix.STATX_TYPE|unix.STATX_DIOALIGN, &st); err != nil {
		return SectorInfo{}, fmt.Errorf("statx %s: %w", path, err)
	}
	if st.Mask&unix.STATX_DIOALIGN != 0 && validSector(st.Dio_offset_align) {
		return SectorInfo{Logical: st.Dio_offset_align, Source: "statx STATX_DIOALIGN"}, nil
	}
	major, minor := st.Dev_major, st.Dev_minor // the device the file is on
	if st.Mode&unix.S_IFMT == unix.S_IFBLK {
		major, minor = st.Rdev_major, st.Rdev_minor // the device itself
	}
	if si, ok := sysfsSectors(major, minor); ok {
		return si, nil
	}
	return SectorInfo{}, result.ErrNotSupported
}

// sysfsSectors reads the logical and physical block sizes of block device
// major:minor from sysfs; a partition has them in its disk's queue.
func sysfsSectors(major, minor uint32) (SectorInfo, bool) {
	dev := filepath.Join("/sys/dev/block", fmt.Sprintf("%d:%d", major, minor))
	for _, q := range []string{filepath.Join(dev, "queue"), filepath.Join(dev, "..", "queue")} {
		logical, ok := readSysfsUint(filepath.Join(q, "logical_block_size"))
		if !ok || !validSector(logical) {
			continue
		}
		physical, _ := readSysfsUint(filepath.Join(q, "physical_block_size"))
		return SectorInfo{Logical: logical, Physical: physical, Source: "sysfs queue/logical_block_size"}, true
	}
	return SectorInfo{}, false
}

func readSysfsUint(path string) (uint32, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 32)
	return uint32(v), err == nil
}
