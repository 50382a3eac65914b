//go:build linux

package admit

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// openBy looks through every other process's open descriptors for a node
// of the graph, in one pass over /proc. O_EXCL only catches programs that
// opened a device exclusively; a virtual machine, a database or a dd
// writing to it does not, and writing under it would destroy what it is
// writing. A block device counts when it is open at all; a regular file
// when it is open for writing (fdinfo's flags) or mapped shared and
// writable. Processes this user may not inspect are passed over (as root,
// none are). It returns the node and what was found.
func (g *graph) openBy() (int, string, bool) {
	devs, files := map[uint64]int{}, map[fileID]int{}
	for i, n := range g.nodes {
		if n.block {
			devs[n.dev] = i
		} else {
			files[n.id] = i
		}
	}
	procs, err := os.ReadDir(procRoot)
	if err != nil {
		return 0, "", false
	}
	self := os.Getpid()
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == self {
			continue
		}
		if i, what, ok := openByProcess(devs, files, p.Name()); ok {
			comm, _ := os.ReadFile(filepath.Join(procRoot, p.Name(), "comm"))
			return i, fmt.Sprintf("%s by process %d (%s)", what, pid, strings.TrimSpace(string(comm))), true
		}
	}
	return 0, "", false
}

// openByProcess checks one process; the answer lacks " by process N".
func openByProcess(devs map[uint64]int, files map[fileID]int, pid string) (int, string, bool) {
	fdDir := filepath.Join(procRoot, pid, "fd")
	fds, _ := os.ReadDir(fdDir)
	for _, fd := range fds {
		var st unix.Stat_t
		if unix.Stat(filepath.Join(fdDir, fd.Name()), &st) != nil {
			continue
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFBLK:
			if i, ok := devs[st.Rdev]; ok {
				return i, "held open", true
			}
		case unix.S_IFREG:
			i, ok := files[fileID{st.Dev, st.Ino}]
			if !ok {
				continue
			}
			info, err := os.ReadFile(filepath.Join(procRoot, pid, "fdinfo", fd.Name()))
			flags, known := parseFdinfoFlags(info)
			if err != nil || !known {
				return i, "held open (for writing, as far as clyde can tell)", true
			}
			if flags&unix.O_ACCMODE != unix.O_RDONLY {
				return i, "open for writing", true
			}
		}
	}
	if len(files) == 0 {
		return 0, "", false
	}
	maps, err := os.Open(filepath.Join(procRoot, pid, "maps"))
	if err != nil {
		return 0, "", false
	}
	defer maps.Close()
	sc := bufio.NewScanner(maps)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		dev, ino, sharedWrite, ok := parseMapsLine(sc.Text())
		if !ok || !sharedWrite {
			continue
		}
		if i, ok := files[fileID{dev, ino}]; ok {
			return i, "mapped for writing (shared mmap)", true
		}
	}
	return 0, "", false
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
