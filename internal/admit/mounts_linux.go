//go:build linux

package admit

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/proc"
	"github.com/clydebench/clyde/internal/sysinfo"
)

// mount is a line of one mount namespace's mountinfo and what its source is
// when that is a path: the device number of a block device, or the identity
// of a regular file (a filesystem mounted straight from an image file, such
// as erofs), the path resolved as that namespace sees it. The source is the
// string given at mount time, which a rename or a relative path makes
// point at the wrong file or at nothing; the mount's device number, and a
// file-backed superblock's UUID (system.backed), are what the kernel keeps
// live.
type mount struct {
	sysinfo.MountInfo
	ns      proc.MountNS
	srcDev  uint64
	srcFile fileID
}

// dev is the device number files on the mount report (st_dev).
func (m mount) dev() uint64 { return unix.Mkdev(m.Major, m.Minor) }

// where is what a refusal says of the mount: "mounted on /mnt (ext4)", and
// whose namespace it is in when it is not clyde's.
func (m mount) where(note string) string {
	what := m.FSType
	if note != "" {
		what += ", " + note
	}
	s := fmt.Sprintf("mounted on %s (%s)", m.MountPoint, what)
	if !m.ns.Self {
		s += fmt.Sprintf(" in another mount namespace (pid %d's)", m.ns.PID)
	}
	return s
}

// readMounts reads the mount table of every mount namespace on the
// machine, clyde's own first. A namespace whose tasks ended while it was
// read is passed over; clyde's own table must be readable.
func readMounts() ([]mount, error) {
	var mounts []mount
	for _, ns := range proc.MountNamespaces(procRoot) {
		infos, err := sysinfo.ReadMounts(filepath.Join(procRoot, ns.Dir, "mountinfo"))
		if err != nil {
			if ns.Self {
				return nil, err
			}
			continue
		}
		for _, m := range infos {
			mt := mount{MountInfo: m, ns: ns}
			// A block device's mount has its device number; only one on
			// an anonymous device (btrfs, a file-backed erofs) needs its
			// source looked at.
			if m.Major == 0 && strings.HasPrefix(m.Source, "/") {
				if st, ok := statIn(ns, m.Source); ok {
					switch st.Mode & unix.S_IFMT {
					case unix.S_IFBLK:
						mt.srcDev = st.Rdev
					case unix.S_IFREG:
						mt.srcFile = fileID{st.Dev, st.Ino}
					}
				}
			}
			mounts = append(mounts, mt)
		}
	}
	return mounts, nil
}

// openIn opens path as the tasks of namespace ns see it: through that
// task's root, symlinks resolved inside it (RESOLVE_IN_ROOT) and no magic
// link followed, so a name in a container means what it means there.
// clyde's own namespace opens path as given.
func openIn(ns proc.MountNS, path string, flags uint64) (int, bool) {
	if ns.Self {
		fd, err := unix.Open(path, int(flags)|unix.O_CLOEXEC, 0)
		return fd, err == nil
	}
	root, err := unix.Open(filepath.Join(procRoot, ns.Dir, "root"), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, false
	}
	defer unix.Close(root)
	fd, err := unix.Openat2(root, path, &unix.OpenHow{Flags: flags | unix.O_CLOEXEC, Resolve: unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS})
	return fd, err == nil
}

// statIn stats path (symlinks followed) as namespace ns sees it.
func statIn(ns proc.MountNS, path string) (unix.Stat_t, bool) {
	var st unix.Stat_t
	fd, ok := openIn(ns, path, unix.O_PATH)
	if !ok {
		return st, false
	}
	defer unix.Close(fd)
	return st, unix.Fstat(fd, &st) == nil
}

// fileBacked is, for each filesystem Linux mounts straight from a regular
// file with no block device between (erofs since 6.12; a loop device is a
// block device and is followed through sysfs instead), where its
// superblock keeps the UUID the kernel reports for the mount
// (FS_IOC_GETFSUUID) and the magic that says the superblock is there.
// The kernel shows such a mount's source only as the string given at
// mount time; the UUID is what it keeps live.
var fileBacked = map[string]struct {
	magicOff, uuidOff int64
	magic             uint32
}{
	"erofs": {magicOff: 1024, uuidOff: 1024 + 48, magic: 0xE0F5E1E2},
}

// readBacked asks the kernel for the superblock UUID of every mount of a
// file-backed filesystem type with no block device (an anonymous device
// number, major 0), in whichever namespace it is: the mount's root is
// opened through that namespace and must be the mount's device (not
// something mounted over it).
func (s *system) readBacked() {
	for i, m := range s.mounts {
		if _, ok := fileBacked[m.FSType]; !ok || m.Major != 0 {
			continue
		}
		if _, done := s.backed[m.dev()]; done {
			continue
		}
		fd, ok := openIn(m.ns, m.MountPoint, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK)
		if !ok {
			continue
		}
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && st.Dev == m.dev() {
			if uuid, ok := fsUUID(fd); ok {
				s.backed[m.dev()] = backedMount{uuid: uuid, at: i}
			}
		}
		unix.Close(fd)
	}
}

// backedMount is a file-backed superblock: its UUID and the first mount of
// it in s.mounts.
type backedMount struct {
	uuid [16]byte
	at   int
}

// fsUUID asks the filesystem fd is on for its UUID (FS_IOC_GETFSUUID,
// Linux 6.5): false for none, or a kernel that does not answer.
func fsUUID(fd int) ([16]byte, bool) {
	const fsIocGetFSUUID = 0x80111500 // _IOR(0x15, 0, struct fsuuid2)
	var u struct {
		len  uint8
		uuid [16]byte
	}
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), fsIocGetFSUUID, uintptr(unsafe.Pointer(&u)))
	if errno != 0 || u.len != 16 || u.uuid == ([16]byte{}) {
		return [16]byte{}, false
	}
	return u.uuid, true
}

// superUUID reads the UUID in the superblock of a file-backed filesystem
// of type fstype at the start of fd: false when the superblock is not
// there.
func superUUID(fd int, fstype string) ([16]byte, bool) {
	var u [16]byte
	fb, ok := fileBacked[fstype]
	if !ok {
		return u, false
	}
	magic := make([]byte, 4)
	if n, err := unix.Pread(fd, magic, fb.magicOff); err != nil || n < 4 || binary.LittleEndian.Uint32(magic) != fb.magic {
		return u, false
	}
	if n, err := unix.Pread(fd, u[:], fb.uuidOff); err != nil || n < len(u) || u == ([16]byte{}) {
		return u, false
	}
	return u, true
}

func formatUUID(u [16]byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}
