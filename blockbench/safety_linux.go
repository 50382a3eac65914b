//go:build linux

package blockbench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/sysinfo"
)

// sysfsRoot, procRoot and devRoot are variables so tests can point them at
// fake trees.
var (
	sysfsRoot = "/sys"
	procRoot  = "/proc"
	devRoot   = "/dev"
)

// devNode is one block device related to the target: itself, a partition
// of it, or a holder stacked on it (dm, md, LVM).
type devNode struct {
	name   string // sysfs name: sda, sda1, dm-0
	dev    uint64 // device number
	holder bool   // stacked on the target or one of its partitions
}

// checkDeviceWrite applies block.md §6 to a write on a block device. In
// order: a device that is in use (mounted, swap, claimed by the kernel or
// another program), or a loop device whose image another loop device in
// use shares, is refused whatever the flags; an unused one needs destroy.
// On success it returns the exclusive open that keeps the device from
// being mounted or claimed while the run lasts.
func checkDeviceWrite(given, resolved string, destroy bool) (osio.File, error) {
	var st unix.Stat_t
	if err := unix.Stat(resolved, &st); err != nil {
		return osio.NoFile, fmt.Errorf("stat %s: %w", resolved, err)
	}
	nodes, err := relatedDevices(st.Rdev)
	if err != nil {
		return osio.NoFile, err
	}
	refuse := func(found string) error {
		return &RefusedError{Path: resolved, Given: given, Kind: refusedDevice, Found: found}
	}
	if found, err := deviceInUse(nodes); err != nil {
		return osio.NoFile, err
	} else if found != "" {
		return osio.NoFile, refuse(found)
	}
	if found, err := loopImageInUse(nodes[0]); err != nil {
		return osio.NoFile, err
	} else if found != "" {
		return osio.NoFile, refuse(found)
	}
	f, err := osio.OpenFile(resolved, osio.ReadOnly|osio.Exclusive)
	if errors.Is(err, unix.EBUSY) {
		return osio.NoFile, refuse("it is held open exclusively by another program or the kernel (O_EXCL open failed: device busy)")
	}
	if err != nil {
		return osio.NoFile, fmt.Errorf("open %s exclusively: %w", resolved, err)
	}
	if destroy {
		return f, nil
	}
	sigs, err := readSignatures(f, resolved)
	f.Close()
	if err != nil {
		return osio.NoFile, err
	}
	found := "no signature found"
	if len(sigs) > 0 {
		found = strings.Join(sigs, ", ")
	}
	return osio.NoFile, &RefusedError{Path: resolved, Given: given, Kind: refusedDevice, Found: found, Allow: "--destroy-data"}
}

// deviceInUse holds the rules no flag overrides, for a device and its
// partitions and holders: mounted, swap, stacked on, or held open by
// another process. It returns what it found, "" for nothing.
func deviceInUse(nodes []devNode) (string, error) {
	if where, ok, err := mountedAny(nodes); err != nil || ok {
		return where, err
	}
	if where, ok, err := swapAny(nodes); err != nil || ok {
		return where, err
	}
	for _, n := range nodes {
		if n.holder {
			return fmt.Sprintf("/dev/%s (device-mapper, LVM or RAID) is stacked on it", n.name), nil
		}
	}
	if who, ok := openBy(deviceMatch(nodes), false); ok {
		return who, nil
	}
	return "", nil
}

// checkFileWrite applies the same rules to a write on an existing regular
// file, described by e. A file that is the image behind a loop device, a
// swap file, or open for writing by another process is refused whatever
// the flags (writing under a mounted filesystem's image corrupts it, as
// writing under a VM's disk or a database does); otherwise the write needs
// destroy, as a device's does.
func checkFileWrite(given, resolved string, e osio.Entry, destroy bool) error {
	refuse := func(found string) error {
		return &RefusedError{Path: resolved, Given: given, Kind: refusedFile, Found: found}
	}
	loops, err := attachedLoops()
	if err != nil {
		return err
	}
	for _, l := range loops {
		if l.backs(e.ID) {
			return refuse("it is the backing file of " + l.use())
		}
	}
	if where, ok, err := swapFile(e.ID); err != nil {
		return err
	} else if ok {
		return refuse(where)
	}
	if who, ok := openBy(fileMatch(e.ID, "it"), true); ok {
		return refuse(who)
	}
	if !destroy {
		return &RefusedError{Path: resolved, Given: given, Kind: refusedFile, Found: fmt.Sprintf("an existing file of %d bytes", e.Size), Allow: "--destroy-data"}
	}
	return nil
}

// loopDev is a loop device bound to a backing file.
type loopDev struct {
	name    string // loop3
	dev     uint64
	backing string // the path sysfs shows
	// ids identify the backing file: from a stat of backing, and from
	// LOOP_GET_STATUS64 (which still knows a file renamed or deleted
	// since), where each is available.
	ids []osio.Identity
}

// backs is true when id is the loop device's backing file.
func (l loopDev) backs(id osio.Identity) bool {
	for _, b := range l.ids {
		if b.Dev == id.Dev && b.Ino == id.Ino {
			return true
		}
	}
	return false
}

// sharesBacking is true when l and o are bound to one file.
func (l loopDev) sharesBacking(o loopDev) bool {
	for _, id := range o.ids {
		if l.backs(id) {
			return true
		}
	}
	return false
}

// use says what the loop device is doing: mounted or otherwise in use, or
// only attached.
func (l loopDev) use() string {
	name := "/dev/" + l.name
	if nodes, err := relatedDevices(l.dev); err == nil {
		if found, err := deviceInUse(nodes); err == nil && found != "" {
			return name + ", and " + found
		}
	}
	return fmt.Sprintf("%s (losetup -d %s detaches it)", name, name)
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
		var st unix.Stat_t
		if l.backing != "" && unix.Stat(l.backing, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
			l.ids = append(l.ids, osio.Identity{Dev: st.Dev, Ino: st.Ino})
		}
		if id, ok := loopStatusID(l.name, dev); ok {
			l.ids = append(l.ids, id)
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

// loopStatusID asks the loop device itself what it is bound to. It opens
// the node read-only, and only when the node is the device sysfs names.
func loopStatusID(name string, dev uint64) (osio.Identity, bool) {
	node := filepath.Join(devRoot, name)
	var st unix.Stat_t
	if unix.Stat(node, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFBLK || st.Rdev != dev {
		return osio.Identity{}, false
	}
	fd, err := unix.Open(node, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return osio.Identity{}, false
	}
	defer unix.Close(fd)
	info, err := unix.IoctlLoopGetStatus64(fd)
	if err != nil || info.Inode == 0 {
		return osio.Identity{}, false
	}
	return osio.Identity{Dev: info.Device, Ino: info.Inode}, true
}

// loopImageInUse refuses a loop device whose backing file is also bound to
// another loop device that is mounted or in use, or is open for writing by
// a process: writing through this one corrupts what the other shows.
func loopImageInUse(self devNode) (string, error) {
	if _, err := os.Stat(filepath.Join(sysfsRoot, "block", self.name, "loop", "backing_file")); err != nil {
		return "", nil // not a loop device, or not bound
	}
	loops, err := attachedLoops()
	if err != nil {
		return "", err
	}
	var me *loopDev
	for i := range loops {
		if loops[i].dev == self.dev {
			me = &loops[i]
		}
	}
	if me == nil || len(me.ids) == 0 {
		return "", nil
	}
	for _, l := range loops {
		if l.dev == me.dev || !l.sharesBacking(*me) {
			continue
		}
		nodes, err := relatedDevices(l.dev)
		if err != nil {
			return "", err
		}
		found, err := deviceInUse(nodes)
		if err != nil {
			return "", err
		}
		if found != "" {
			return fmt.Sprintf("its backing file %s is also the backing file of /dev/%s, and %s", me.backing, l.name, found), nil
		}
	}
	for _, id := range me.ids {
		if who, ok := openBy(fileMatch(id, "its backing file "+me.backing), true); ok {
			return who, nil
		}
	}
	return "", nil
}

func readSignatures(f osio.File, name string) ([]string, error) {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, fmt.Errorf("size of %s: %w", name, err)
	}
	head := make([]byte, min(signatureSpan, size))
	if _, err := f.Pread(head, 0); err != nil {
		return nil, fmt.Errorf("read the first megabyte of %s: %w", name, err)
	}
	tail := make([]byte, min(signatureSpan, size))
	if _, err := f.Pread(tail, size-int64(len(tail))); err != nil {
		return nil, fmt.Errorf("read the last megabyte of %s: %w", name, err)
	}
	return findSignatures(head, tail), nil
}

// relatedDevices lists the device, its partitions, and every holder of any
// of them, recursively, from sysfs. The device itself comes first.
func relatedDevices(rdev uint64) ([]devNode, error) {
	link := filepath.Join(sysfsRoot, "dev", "block", fmt.Sprintf("%d:%d", unix.Major(rdev), unix.Minor(rdev)))
	real, err := filepath.EvalSymlinks(link)
	if err != nil {
		return nil, fmt.Errorf("find %s in sysfs: %w", link, err)
	}
	nodes := []devNode{{name: filepath.Base(real), dev: rdev}}
	seen := map[string]bool{nodes[0].name: true}
	add := func(dir string, holder bool) {
		name := filepath.Base(dir)
		if seen[name] {
			return
		}
		if dev, ok := readDevNumber(dir); ok {
			seen[name] = true
			nodes = append(nodes, devNode{name: name, dev: dev, holder: holder})
		}
	}
	// Partitions are subdirectories holding a "partition" file.
	if entries, err := os.ReadDir(real); err == nil {
		for _, e := range entries {
			if _, err := os.Stat(filepath.Join(real, e.Name(), "partition")); err == nil {
				add(filepath.Join(real, e.Name()), false)
			}
		}
	}
	for i := 0; i < len(nodes); i++ {
		dir := filepath.Join(sysfsRoot, "class", "block", nodes[i].name, "holders")
		holders, _ := os.ReadDir(dir)
		for _, h := range holders {
			add(filepath.Join(sysfsRoot, "class", "block", h.Name()), true)
		}
	}
	return nodes, nil
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

// mountedAny looks for a mount of any of the nodes, by the device number the
// kernel records in mountinfo and by the mount's source path.
func mountedAny(nodes []devNode) (string, bool, error) {
	mounts, err := sysinfo.ReadMounts(filepath.Join(procRoot, "self", "mountinfo"))
	if err != nil {
		return "", false, err
	}
	for _, m := range mounts {
		byNumber := unix.Mkdev(m.Major, m.Minor)
		bySource := uint64(0)
		if strings.HasPrefix(m.Source, "/dev/") {
			var st unix.Stat_t
			if unix.Stat(m.Source, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFBLK {
				bySource = st.Rdev
			}
		}
		for _, n := range nodes {
			if n.dev == byNumber || n.dev == bySource {
				return fmt.Sprintf("/dev/%s is mounted on %s (%s)", n.name, m.MountPoint, m.FSType), true, nil
			}
		}
	}
	return "", false, nil
}

// swapEntries lists the paths in /proc/swaps: partitions and swap files.
func swapEntries() ([]string, error) {
	b, err := os.ReadFile(filepath.Join(procRoot, "swaps"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("read swap table: %w", err)
	}
	var paths []string
	for _, line := range strings.Split(string(b), "\n")[1:] {
		if fields := strings.Fields(line); len(fields) > 0 {
			paths = append(paths, sysinfo.UnescapeOctal(fields[0]))
		}
	}
	return paths, nil
}

// swapAny looks for any of the nodes in /proc/swaps.
func swapAny(nodes []devNode) (string, bool, error) {
	paths, err := swapEntries()
	if err != nil {
		return "", false, err
	}
	for _, p := range paths {
		var st unix.Stat_t
		if unix.Stat(p, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFBLK {
			continue
		}
		for _, n := range nodes {
			if n.dev == st.Rdev {
				return fmt.Sprintf("/dev/%s is used as swap", n.name), true, nil
			}
		}
	}
	return "", false, nil
}

// swapFile looks for the file id in /proc/swaps.
func swapFile(id osio.Identity) (string, bool, error) {
	paths, err := swapEntries()
	if err != nil {
		return "", false, err
	}
	for _, p := range paths {
		var st unix.Stat_t
		if unix.Stat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Dev == id.Dev && st.Ino == id.Ino {
			return "it is used as a swap file (" + p + ")", true, nil
		}
	}
	return "", false, nil
}

// openMatch says whether an open descriptor, as stat shows its file, is
// what openBy looks for, and how to name it.
type openMatch struct {
	fd func(st *unix.Stat_t) (string, bool)
	// name, dev and ino are, for a regular file, what a mapping must show
	// and how to name it; ino is 0 for devices, whose mappings do not count.
	name     string
	dev, ino uint64
}

// deviceMatch finds descriptors of any of the nodes.
func deviceMatch(nodes []devNode) openMatch {
	devs := make(map[uint64]string, len(nodes))
	for _, n := range nodes {
		devs[n.dev] = "/dev/" + n.name
	}
	return openMatch{fd: func(st *unix.Stat_t) (string, bool) {
		if st.Mode&unix.S_IFMT != unix.S_IFBLK {
			return "", false
		}
		name, ok := devs[st.Rdev]
		return name, ok
	}}
}

// fileMatch finds descriptors and mappings of the regular file id, named name.
func fileMatch(id osio.Identity, name string) openMatch {
	return openMatch{name: name, dev: id.Dev, ino: id.Ino, fd: func(st *unix.Stat_t) (string, bool) {
		return name, st.Mode&unix.S_IFMT == unix.S_IFREG && st.Dev == id.Dev && st.Ino == id.Ino
	}}
}

// openBy looks through every other process's open descriptors for the
// target. O_EXCL only catches programs that opened a device exclusively; a
// virtual machine, a database or a dd writing to it does not, and writing
// under it would destroy what it is writing. With writers, only a
// descriptor open for writing (fdinfo's flags) or a shared writable mapping
// counts; otherwise any descriptor does. Processes this user may not
// inspect are passed over (as root, none are).
func openBy(m openMatch, writers bool) (string, bool) {
	procs, err := os.ReadDir(procRoot)
	if err != nil {
		return "", false
	}
	self := os.Getpid()
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == self {
			continue
		}
		if who, ok := openByProcess(m, writers, p.Name()); ok {
			comm, _ := os.ReadFile(filepath.Join(procRoot, p.Name(), "comm"))
			return fmt.Sprintf("%s by process %d (%s)", who, pid, strings.TrimSpace(string(comm))), true
		}
	}
	return "", false
}

// openByProcess checks one process; the answer lacks " by process N".
func openByProcess(m openMatch, writers bool, pid string) (string, bool) {
	fdDir := filepath.Join(procRoot, pid, "fd")
	fds, _ := os.ReadDir(fdDir)
	for _, fd := range fds {
		var st unix.Stat_t
		if unix.Stat(filepath.Join(fdDir, fd.Name()), &st) != nil {
			continue
		}
		name, ok := m.fd(&st)
		if !ok {
			continue
		}
		if !writers {
			return name + " is held open", true
		}
		info, err := os.ReadFile(filepath.Join(procRoot, pid, "fdinfo", fd.Name()))
		flags, known := parseFdinfoFlags(info)
		if err != nil || !known {
			return name + " is held open (for writing, as far as clyde can tell)", true
		}
		if flags&unix.O_ACCMODE != unix.O_RDONLY {
			return name + " is open for writing", true
		}
	}
	if !writers || m.ino == 0 {
		return "", false
	}
	maps, err := os.Open(filepath.Join(procRoot, pid, "maps"))
	if err != nil {
		return "", false
	}
	defer maps.Close()
	sc := bufio.NewScanner(maps)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if dev, ino, sharedWrite, ok := parseMapsLine(sc.Text()); ok && sharedWrite && dev == m.dev && ino == m.ino {
			return m.name + " is mapped for writing (shared mmap)", true
		}
	}
	return "", false
}

// parseFdinfoFlags reads the "flags:" line of /proc/PID/fdinfo/FD, which
// the kernel prints in octal.
func parseFdinfoFlags(b []byte) (uint64, bool) {
	for line := range bytes.Lines(b) {
		rest, ok := bytes.CutPrefix(line, []byte("flags:"))
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(string(bytes.TrimSpace(rest)), 8, 64)
		if err != nil {
			return 0, false // ParseUint returns the largest value on overflow
		}
		return n, true
	}
	return 0, false
}

// parseMapsLine reads one line of /proc/PID/maps ("start-end perms offset
// major:minor inode path", the device in hex): the file mapped, and whether
// the mapping is shared and writable, the one kind whose stores reach the
// file.
func parseMapsLine(line string) (dev, ino uint64, sharedWrite, ok bool) {
	f := strings.Fields(line)
	if len(f) < 5 || len(f[1]) != 4 {
		return 0, 0, false, false
	}
	majS, minS, found := strings.Cut(f[3], ":")
	if !found {
		return 0, 0, false, false
	}
	maj, err1 := strconv.ParseUint(majS, 16, 32)
	mnr, err2 := strconv.ParseUint(minS, 16, 32)
	ino, err3 := strconv.ParseUint(f[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, 0, false, false
	}
	return unix.Mkdev(uint32(maj), uint32(mnr)), ino, f[1][1] == 'w' && f[1][3] == 's', true
}
