//go:build linux

package admit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/sysinfo"
)

// fileID is a regular file: its filesystem's device number and inode.
type fileID struct{ dev, ino uint64 }

// system is what the kernel says about the machine's block devices and
// mounts, read once per admission, before anything is written: the mount
// tables of every mount namespace, the swap table, the bound loop devices,
// the mounted btrfs filesystems, file-backed superblocks and overlays.
type system struct {
	mounts []mount
	swaps  []swap
	loops  []loopDev
	// btrfs maps the fsid of each mounted btrfs filesystem to what it is;
	// member maps a device's sysfs name to the fsid it belongs to.
	btrfs  map[string]*btrfsFS
	member map[string]string
	// backed maps the device number of each file-backed superblock (erofs
	// from an image) to its UUID; overlays maps each overlay's device
	// number to its layers.
	backed   map[uint64]backedMount
	overlays map[uint64]*overlay
}

// swap is a line of /proc/swaps: a block device or a swap file.
type swap struct {
	path string
	dev  uint64
	file fileID
}

// btrfsFS is a mounted btrfs filesystem: its devices (sysfs names) and where
// it is mounted.
type btrfsFS struct {
	fsid    string
	devices []string
	where   string
}

// loopDev is a bound loop device.
type loopDev struct {
	name    string // loop3
	dev     uint64
	backing string // the path sysfs shows
	// backDev is the device number of a block device behind it; ids
	// identify a regular file behind it: from a stat of backing, and from
	// LOOP_GET_STATUS64 (which still knows a file renamed or deleted
	// since), where each is available.
	backDev uint64
	ids     []fileID
}

// backs is true when id is the loop device's backing file.
func (l loopDev) backs(id fileID) bool {
	for _, b := range l.ids {
		if b == id {
			return true
		}
	}
	return false
}

// backsAny is true when one of ids (a file's identities) is the loop
// device's backing file.
func (l loopDev) backsAny(ids []fileID) bool { return slices.ContainsFunc(ids, l.backs) }

func readSystem() (*system, error) {
	s := &system{btrfs: map[string]*btrfsFS{}, member: map[string]string{}, backed: map[uint64]backedMount{}, overlays: map[uint64]*overlay{}}
	var err error
	if s.mounts, err = readMounts(); err != nil {
		return nil, err
	}
	if s.swaps, err = readSwaps(); err != nil {
		return nil, err
	}
	if s.loops, err = attachedLoops(); err != nil {
		return nil, err
	}
	s.readBtrfs()
	s.readBacked()
	s.readOverlays()
	return s, nil
}

// readSwaps lists /proc/swaps: partitions and swap files.
func readSwaps() ([]swap, error) {
	b, err := os.ReadFile(filepath.Join(procRoot, "swaps"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("read swap table: %w", err)
	}
	var swaps []swap
	for _, line := range strings.Split(string(b), "\n")[1:] {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		sw := swap{path: sysinfo.UnescapeOctal(fields[0])}
		var st unix.Stat_t
		if unix.Stat(sw.path, &st) == nil {
			switch st.Mode & unix.S_IFMT {
			case unix.S_IFBLK:
				sw.dev = st.Rdev
			case unix.S_IFREG:
				sw.file = fileID{st.Dev, st.Ino}
			}
		}
		swaps = append(swaps, sw)
	}
	return swaps, nil
}

// attachedLoops lists every bound loop device from sysfs: each block device
// with a loop/backing_file.
func attachedLoops() ([]loopDev, error) {
	dir := filepath.Join(sysfsRoot, "block")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list block devices to find loop devices: %w", err)
	}
	var loops []loopDev
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "loop", "backing_file"))
		if err != nil {
			continue // not a loop device, or not bound
		}
		dev, ok := readDevNumber(filepath.Join(dir, e.Name()))
		if !ok {
			continue
		}
		l := loopDev{name: e.Name(), dev: dev, backing: parseBackingFile(b)}
		if info, ok := loopStatus(l.name, dev); ok {
			if info.Rdevice != 0 {
				l.backDev = info.Rdevice
			} else if info.Inode != 0 {
				l.ids = append(l.ids, fileID{info.Device, info.Inode})
			}
		}
		backing := l.backing
		if name, ok := strings.CutPrefix(backing, "/dev/"); ok {
			backing = filepath.Join(devRoot, name) // a fake tree's /dev in tests
		}
		var st unix.Stat_t
		if backing != "" && unix.Stat(backing, &st) == nil {
			switch st.Mode & unix.S_IFMT {
			case unix.S_IFREG:
				l.ids = append(l.ids, fileID{st.Dev, st.Ino})
			case unix.S_IFBLK:
				if l.backDev == 0 {
					l.backDev = st.Rdev
				}
			}
		} else if name, ok := strings.CutPrefix(l.backing, "/dev/"); ok && l.backDev == 0 && len(l.ids) == 0 {
			// A device node sysfs knows by that name (the path itself
			// may be gone, or be a fake tree's).
			if dev, ok := readDevNumber(filepath.Join(sysfsRoot, "class", "block", name)); ok {
				l.backDev = dev
			}
		}
		loops = append(loops, l)
	}
	return loops, nil
}

// parseBackingFile reads loop/backing_file: the file's path, with
// " (deleted)" appended once it is unlinked. The path is kept as the kernel
// gives it: stripping the suffix would name whatever new file took the
// deleted one's place (LOOP_GET_STATUS64 still finds the deleted one).
func parseBackingFile(b []byte) string {
	return strings.TrimSuffix(string(b), "\n")
}

// loopStatus asks the loop device itself what it is bound to: the backing
// file's device and inode, or the backing block device's number. It opens
// the node read-only, and only when the node is the device sysfs names.
func loopStatus(name string, dev uint64) (*unix.LoopInfo64, bool) {
	fd, ok := openNode(name, dev)
	if !ok {
		return nil, false
	}
	defer unix.Close(fd)
	info, err := unix.IoctlLoopGetStatus64(fd)
	if err != nil {
		return nil, false
	}
	return info, true
}

// openNode opens /dev/NAME read-only when it is the block device dev.
func openNode(name string, dev uint64) (int, bool) {
	fd, err := unix.Open(filepath.Join(devRoot, name), unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return -1, false
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFBLK || st.Rdev != dev {
		unix.Close(fd)
		return -1, false
	}
	return fd, true
}

// readBtrfs lists the mounted btrfs filesystems: the kernel keeps one
// directory per fsid in /sys/fs/btrfs, with a link per member device. A
// multi-device filesystem's mountinfo line names one of its devices only.
func (s *system) readBtrfs() {
	dir := filepath.Join(sysfsRoot, "fs", "btrfs")
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() == "features" || !e.IsDir() {
			continue
		}
		fs := &btrfsFS{fsid: e.Name()}
		devs, _ := os.ReadDir(filepath.Join(dir, e.Name(), "devices"))
		for _, d := range devs {
			fs.devices = append(fs.devices, d.Name())
			s.member[d.Name()] = fs.fsid
		}
		fs.where = s.btrfsMountPoint(fs)
		s.btrfs[fs.fsid] = fs
	}
}

// btrfsMountPoint is where one of the filesystem's devices is mounted.
func (s *system) btrfsMountPoint(fs *btrfsFS) string {
	for _, m := range s.mounts {
		if m.FSType != "btrfs" {
			continue
		}
		for _, d := range fs.devices {
			if filepath.Base(m.Source) == d {
				return m.MountPoint
			}
			if dev, ok := readDevNumber(filepath.Join(sysfsRoot, "class", "block", d)); ok && m.srcDev == dev {
				return m.MountPoint
			}
		}
	}
	return "(mount point not found)"
}

// sysfsName is the kernel's name of block device dev (sda1, dm-0, loop3).
func sysfsName(dev uint64) (string, error) {
	link := filepath.Join(sysfsRoot, "dev", "block", fmt.Sprintf("%d:%d", unix.Major(dev), unix.Minor(dev)))
	real, err := filepath.EvalSymlinks(link)
	if err != nil {
		return "", fmt.Errorf("find %s in sysfs, where what is stacked on the device is read: %w", link, err)
	}
	return filepath.Base(real), nil
}

func readDevNumber(dir string) (uint64, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "dev"))
	if err != nil {
		return 0, false
	}
	var maj, mnr uint32
	if _, err := fmt.Sscanf(strings.TrimSpace(string(b)), "%d:%d", &maj, &mnr); err != nil {
		return 0, false
	}
	return unix.Mkdev(maj, mnr), true
}

// btrfsFsid reads the fsid of a btrfs superblock at 64 KiB of fd ("" for
// none): the second check of a btrfs member, for a device or image whose
// sysfs entry does not say it (a member reached through another loop
// device over its image).
func btrfsFsid(fd int) string {
	const sbOff, fsidOff, magicOff = 64 << 10, 0x20, 0x40
	b := make([]byte, 0x48)
	if n, err := unix.Pread(fd, b, sbOff); err != nil || n < len(b) || string(b[magicOff:magicOff+8]) != "_BHRfS_M" {
		return ""
	}
	u := b[fsidOff : fsidOff+16]
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}
