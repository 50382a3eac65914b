//go:build linux

package blockbench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// sysfsRoot and procRoot are variables so tests can point them elsewhere.
var (
	sysfsRoot = "/sys"
	procRoot  = "/proc"
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
// another program) is refused whatever the flags; an unused one needs
// destroy. On success it returns the exclusive open that keeps the device
// from being mounted or claimed while the run lasts.
func checkDeviceWrite(given, resolved string, destroy bool) (io.Closer, error) {
	var st unix.Stat_t
	if err := unix.Stat(resolved, &st); err != nil {
		return nil, fmt.Errorf("stat %s: %w", resolved, err)
	}
	nodes, err := relatedDevices(st.Rdev)
	if err != nil {
		return nil, err
	}
	refuse := func(found string) error {
		return &RefusedError{Device: resolved, Given: given, Found: found}
	}
	if where, ok, err := mountedAny(nodes); err != nil {
		return nil, err
	} else if ok {
		return nil, refuse(where)
	}
	if where, ok, err := swapAny(nodes); err != nil {
		return nil, err
	} else if ok {
		return nil, refuse(where)
	}
	for _, n := range nodes {
		if n.holder {
			return nil, refuse(fmt.Sprintf("/dev/%s (device-mapper, LVM or RAID) is stacked on it", n.name))
		}
	}
	if who, ok := openedByOthers(nodes); ok {
		return nil, refuse(who)
	}
	f, err := os.OpenFile(resolved, os.O_RDONLY|unix.O_EXCL, 0)
	if errors.Is(err, unix.EBUSY) {
		return nil, refuse("it is held open exclusively by another program or the kernel (O_EXCL open failed: device busy)")
	}
	if err != nil {
		return nil, fmt.Errorf("open %s exclusively: %w", resolved, err)
	}
	if destroy {
		return f, nil
	}
	sigs, err := readSignatures(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	found := "no signature found"
	if len(sigs) > 0 {
		found = strings.Join(sigs, ", ")
	}
	return nil, &RefusedError{Device: resolved, Given: given, Found: found, Allow: "--destroy-data"}
}

func readSignatures(f *os.File) ([]string, error) {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, fmt.Errorf("size of %s: %w", f.Name(), err)
	}
	head := make([]byte, min(signatureSpan, size))
	if _, err := f.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read the first megabyte of %s: %w", f.Name(), err)
	}
	tail := make([]byte, min(signatureSpan, size))
	if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read the last megabyte of %s: %w", f.Name(), err)
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
	f, err := os.Open(filepath.Join(procRoot, "self", "mountinfo"))
	if err != nil {
		return "", false, fmt.Errorf("read mount table: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		sep := -1
		for i, fl := range fields {
			if fl == "-" {
				sep = i
				break
			}
		}
		var source, fstype string
		if sep > 0 && sep+2 < len(fields) {
			fstype, source = fields[sep+1], unescapeMount(fields[sep+2])
		}
		var maj, mnr uint32
		_, _ = fmt.Sscanf(fields[2], "%d:%d", &maj, &mnr)
		byNumber := unix.Mkdev(maj, mnr)
		bySource := uint64(0)
		if strings.HasPrefix(source, "/dev/") {
			var st unix.Stat_t
			if unix.Stat(source, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFBLK {
				bySource = st.Rdev
			}
		}
		for _, n := range nodes {
			if n.dev == byNumber || n.dev == bySource {
				return fmt.Sprintf("/dev/%s is mounted on %s (%s)", n.name, unescapeMount(fields[4]), fstype), true, nil
			}
		}
	}
	return "", false, sc.Err()
}

// swapAny looks for any of the nodes in /proc/swaps.
func swapAny(nodes []devNode) (string, bool, error) {
	b, err := os.ReadFile(filepath.Join(procRoot, "swaps"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", false, nil
		}
		return "", false, fmt.Errorf("read swap table: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		var st unix.Stat_t
		if unix.Stat(unescapeMount(fields[0]), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFBLK {
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

// unescapeMount undoes the kernel's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] >= '0' && s[i+1] <= '3' {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// openedByOthers looks through every process's open descriptors for the
// device, its partitions or holders. O_EXCL only catches programs that opened
// the device exclusively; a virtual machine or a dd writing to it does not,
// and writing under it would destroy what it is writing. Processes this user
// may not inspect are passed over (as root, none are).
func openedByOthers(nodes []devNode) (string, bool) {
	devs := make(map[uint64]string, len(nodes))
	for _, n := range nodes {
		devs[n.dev] = n.name
	}
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
		fdDir := filepath.Join(procRoot, p.Name(), "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			var st unix.Stat_t
			if unix.Stat(filepath.Join(fdDir, fd.Name()), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFBLK {
				continue
			}
			if name, ok := devs[st.Rdev]; ok {
				comm, _ := os.ReadFile(filepath.Join(procRoot, p.Name(), "comm"))
				return fmt.Sprintf("/dev/%s is held open by process %d (%s)", name, pid, strings.TrimSpace(string(comm))), true
			}
		}
	}
	return "", false
}
