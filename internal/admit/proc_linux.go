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

	"github.com/clydebench/clyde/internal/proc"
	"github.com/clydebench/clyde/internal/sysinfo"
)

// openBy looks through every other process's open descriptors, maps and
// io_uring registered files for a node of the graph, in one pass over
// /proc. O_EXCL only catches programs that opened a device exclusively; a
// virtual machine, a database or a dd writing to it does not, and writing
// under it would destroy what it is writing. A block device counts when it
// is open at all or mapped shared and writable (a map of a device node
// shows the node's own inode, so the map is looked at through map_files,
// which gives the device's number); a regular file when it is open for
// writing (fdinfo's flags), mapped shared and writable, or registered in
// an io_uring (whose descriptor may be closed: the ring's fdinfo lists it).
// A file is matched by every identity the kernel may report for its data
// (system.identities: through an overlay, the overlay's). Processes this
// user may not inspect are passed over (as root, none are). It returns
// the node and what was found, and notes whether a process holds the
// target file only for reading.
func (g *graph) openBy() (int, string, bool) {
	h := holders{devs: map[uint64]int{}, files: map[fileID]int{}}
	for i, n := range g.nodes {
		if n.block {
			h.devs[n.dev] = i
			continue
		}
		for _, id := range n.ids {
			if _, ok := h.files[id]; !ok {
				h.files[id] = i
			}
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
		if i, what, ok := h.process(p.Name()); ok {
			comm, _ := os.ReadFile(filepath.Join(procRoot, p.Name(), "comm"))
			return i, fmt.Sprintf("%s by process %d (%s)", what, pid, strings.TrimSpace(string(comm))), true
		}
	}
	g.rootRead = h.rootRead
	return 0, "", false
}

// holders is what openBy looks for: the graph's devices and files, by
// node.
type holders struct {
	devs  map[uint64]int
	files map[fileID]int
	// rootRead: a process holds the target file (node 0) open or mapped
	// for reading only.
	rootRead bool
}

// process checks one process; the answer lacks " by process N".
func (h *holders) process(pid string) (int, string, bool) {
	fdDir := filepath.Join(procRoot, pid, "fd")
	fds, _ := os.ReadDir(fdDir)
	for _, fd := range fds {
		var st unix.Stat_t
		if unix.Stat(filepath.Join(fdDir, fd.Name()), &st) != nil {
			continue
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFBLK:
			if i, ok := h.devs[st.Rdev]; ok {
				return i, "held open", true
			}
		case unix.S_IFREG:
			i, ok := h.files[fileID{st.Dev, st.Ino}]
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
			h.rootRead = h.rootRead || i == 0
		case 0:
			// An anonymous inode: an io_uring's registered files are
			// held by the ring, with or without a descriptor left.
			if i, what, ok := h.ring(pid, fd.Name()); ok {
				return i, what, true
			}
		}
	}
	return h.maps(pid)
}

// ring checks the io_uring at descriptor fd of pid: its fdinfo lists each
// registered file by path ("UserFiles:", then "  N: path"), which is
// resolved in the process's own root and in clyde's.
func (h *holders) ring(pid, fd string) (int, string, bool) {
	link, err := os.Readlink(filepath.Join(procRoot, pid, "fd", fd))
	if err != nil || link != "anon_inode:[io_uring]" {
		return 0, "", false
	}
	info, err := os.ReadFile(filepath.Join(procRoot, pid, "fdinfo", fd))
	if err != nil {
		return 0, "", false
	}
	n, _ := strconv.Atoi(pid)
	theirs := proc.MountNS{PID: n, Dir: pid}
	for _, path := range parseRingFiles(info) {
		for _, ns := range []proc.MountNS{theirs, {Self: true}} {
			st, ok := statIn(ns, path)
			if !ok {
				continue
			}
			switch st.Mode & unix.S_IFMT {
			case unix.S_IFBLK:
				if i, ok := h.devs[st.Rdev]; ok {
					return i, "registered in an io_uring (fixed file " + path + ")", true
				}
			case unix.S_IFREG:
				if i, ok := h.files[fileID{st.Dev, st.Ino}]; ok {
					return i, "registered in an io_uring (fixed file " + path + ")", true
				}
			}
		}
	}
	return 0, "", false
}

// maps checks the process's memory maps: of a file of the graph, shared
// and writable (a private or read-only map of the target is a reader);
// of a device of the graph, shared and writable.
func (h *holders) maps(pid string) (int, string, bool) {
	maps, err := os.Open(filepath.Join(procRoot, pid, "maps"))
	if err != nil {
		return 0, "", false
	}
	defer maps.Close()
	sc := bufio.NewScanner(maps)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		dev, ino, sharedWrite, ok := parseMapsLine(line)
		if !ok || ino == 0 {
			continue
		}
		if i, ok := h.files[fileID{dev, ino}]; ok {
			if sharedWrite {
				return i, "mapped for writing (shared mmap)", true
			}
			h.rootRead = h.rootRead || i == 0
			continue
		}
		if !sharedWrite || len(h.devs) == 0 {
			continue
		}
		// A device node's map shows the node's inode (on devtmpfs);
		// map_files/START-END leads to the device itself.
		span, _, _ := strings.Cut(line, " ")
		var st unix.Stat_t
		if unix.Stat(filepath.Join(procRoot, pid, "map_files", span), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFBLK {
			continue
		}
		if i, ok := h.devs[st.Rdev]; ok {
			return i, "mapped for writing (shared mmap of the device)", true
		}
	}
	return 0, "", false
}

// parseRingFiles reads the registered files from an io_uring's fdinfo:
// after "UserFiles:\tN", one "%5u: path" line per file that is set, the
// path escaped as the kernel's seq_file_path does (\ooo for a space, a
// tab, a newline or a backslash).
func parseRingFiles(b []byte) []string {
	var paths []string
	in := false
	for line := range bytes.Lines(b) {
		l := strings.TrimRight(string(line), "\n")
		if strings.HasPrefix(l, "UserFiles:") {
			in = true
			continue
		}
		if !in {
			continue
		}
		num, path, ok := strings.Cut(strings.TrimLeft(l, " "), ": ")
		if _, err := strconv.ParseUint(num, 10, 32); !ok || err != nil || path == "" {
			break // the next section (UserBufs:)
		}
		paths = append(paths, sysinfo.UnescapeOctal(path))
	}
	return paths
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
