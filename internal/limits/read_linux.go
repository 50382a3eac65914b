//go:build linux

package limits

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/sysinfo"
)

// cgroupRoot is where cgroup filesystems are mounted; tests move it.
var cgroupRoot = "/sys/fs/cgroup"

// defaultThreadStack is what glibc reserves for a thread's stack when
// RLIMIT_STACK is unlimited.
const defaultThreadStack = 8 << 20

func read() (Limits, error) {
	var l Limits
	if ram, err := sysinfo.RAM(); err == nil {
		l.Memory = ram.Effective
	}
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_AS, &rl) == nil && rl.Cur != unix.RLIM_INFINITY {
		l.AddressSpace = rl.Cur
		l.AddressInUse = vmSize()
		l.ThreadStack = defaultThreadStack
		var st unix.Rlimit
		if unix.Getrlimit(unix.RLIMIT_STACK, &st) == nil && st.Cur != unix.RLIM_INFINITY {
			l.ThreadStack = st.Cur
		}
	}
	if os.Geteuid() != 0 && unix.Getrlimit(unix.RLIMIT_NPROC, &rl) == nil && rl.Cur != unix.RLIM_INFINITY && rl.Cur < 1<<31 {
		l.Nproc = int(rl.Cur)
	}
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) == nil && rl.Cur != unix.RLIM_INFINITY && rl.Cur < 1<<31 {
		l.Files = int(rl.Cur)
		if es, err := os.ReadDir("/proc/self/fd"); err == nil {
			l.FilesOpen = len(es) - 1 // the one ReadDir used
		}
	}
	if cg, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		l.Pids, l.PidsSet = pidsRoom(cg)
	}
	return l, nil
}

// vmSize is the process's virtual size now (VmSize of /proc/self/status).
func vmSize() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmSize:"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				kb, _ := strconv.ParseUint(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// pidsRoom is how many more tasks the pids controller lets this process's
// cgroup start: the least of pids.max - pids.current along its path up to
// the root, in cgroup v2 (the "0::" line) or v1's pids hierarchy.
func pidsRoom(procCgroup []byte) (int, bool) {
	room, set := 0, false
	sc := bufio.NewScanner(bytes.NewReader(procCgroup))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), ":", 3)
		if len(f) != 3 {
			continue
		}
		var dir string
		switch {
		case f[0] == "0" && f[1] == "":
			dir = filepath.Join(cgroupRoot, f[2])
		case hasController(f[1], "pids"):
			dir = filepath.Join(cgroupRoot, "pids", f[2])
		default:
			continue
		}
		for d := dir; strings.HasPrefix(d, cgroupRoot); d = filepath.Dir(d) {
			if r, ok := pidsLeft(d); ok && (!set || r < room) {
				room, set = r, true
			}
			if d == cgroupRoot {
				break
			}
		}
	}
	return room, set
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// pidsLeft reads one cgroup's pids.max and pids.current.
func pidsLeft(dir string) (int, bool) {
	mb, err := os.ReadFile(filepath.Join(dir, "pids.max"))
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(mb))
	if s == "max" {
		return 0, false
	}
	limit, err := strconv.Atoi(s)
	if err != nil {
		return 0, false
	}
	cur := 0
	if cb, err := os.ReadFile(filepath.Join(dir, "pids.current")); err == nil {
		cur, _ = strconv.Atoi(strings.TrimSpace(string(cb)))
	}
	return max(0, limit-cur), true
}
