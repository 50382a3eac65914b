//go:build linux

package sysinfo

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"

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

	if devs := mountDevices("/sys", m, resolved); len(devs) > 0 {
		var models, serials, ids []string
		for _, d := range devs {
			dev := describeBlockDevice("/sys", d.major, d.minor)
			models, serials = appendUnique(models, dev.Model), appendUnique(serials, dev.Serial)
			ids = appendUnique(ids, dev.ID)
			for _, n := range dev.Notes {
				notes = appendUnique(notes, n)
			}
		}
		fs.DeviceModel, fs.DeviceSerial = strings.Join(models, ", "), strings.Join(serials, ", ")
		slices.Sort(ids)
		fs.DeviceID = strings.Join(ids, ",")
		sb := deviceSuperblockID(m.Source, m.FSType, devs)
		fs.UUID, fs.Created = sb.UUID, sb.Created
		if m.FSType == "ext4" && ext4NoJournal("/sys", devs[0].major, devs[0].minor) {
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

// mountDevices are the block devices the kernel ties to a mount, never
// read from its source text: a tmpfs mounted with source=/dev/vda, or a
// FUSE mount with fsname=/dev/vda, has none. Mountinfo's st_dev is the
// device for a filesystem on one (fuseblk's too: the kernel opened it);
// filesystems without a block device show 0:N, and so does btrfs, whose
// devices the kernel lists under /sys/fs/btrfs/FSID/devices, the FSID
// asked of the mounted filesystem itself (path is a file on it).
func mountDevices(sysRoot string, m mountInfo, path string) []devNum {
	if m.Major != 0 {
		return []devNum{{m.Major, m.Minor}}
	}
	if m.FSType != "btrfs" {
		return nil
	}
	fsid, ok := btrfsFSID(path)
	if !ok {
		return nil
	}
	dir := filepath.Join(sysRoot, "fs", "btrfs", fsid, "devices")
	entries, _ := os.ReadDir(dir)
	var devs []devNum
	for _, e := range entries {
		var d devNum
		if _, err := fmt.Sscanf(readSysfs(filepath.Join(dir, e.Name(), "dev")), "%d:%d", &d.major, &d.minor); err == nil && d.major != 0 {
			devs = append(devs, d)
		}
	}
	return devs
}

// btrfsFSID asks the btrfs filesystem holding path for its FSID
// (BTRFS_IOC_FS_INFO), in /sys/fs/btrfs's form.
func btrfsFSID(path string) (string, bool) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return "", false
	}
	defer unix.Close(fd)
	var args [btrfsFSInfoSize]byte
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), btrfsIocFSInfo, uintptr(unsafe.Pointer(&args[0]))); errno != 0 {
		return "", false
	}
	id := formatUUID(args[btrfsFSInfoFSIDOffset : btrfsFSInfoFSIDOffset+16])
	return id, id != ""
}

// BTRFS_IOC_FS_INFO is _IOR(0x94, 31, struct btrfs_ioctl_fs_info_args),
// a 1024-byte struct whose fsid follows max_id and num_devices. _IOR's
// direction bits differ between architectures (bit 31 on x86 and arm, bit
// 30 on mips, powerpc and sparc); FS_IOC_GETFLAGS, another _IOR, has this
// one's.
const (
	btrfsFSInfoSize       = 1024
	iocReadBits           = unix.FS_IOC_GETFLAGS &^ 0x3fffffff
	btrfsIocFSInfo        = iocReadBits | btrfsFSInfoSize<<16 | 0x94<<8 | 31
	btrfsFSInfoFSIDOffset = 16
)
