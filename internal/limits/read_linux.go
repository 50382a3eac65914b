//go:build linux

package limits

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/limits/floor"
	"github.com/clydebench/clyde/internal/sysinfo"
)

func read() (Limits, error) {
	var l Limits
	if ram, err := sysinfo.RAM(); err == nil {
		l.Memory = ram.Effective
	}
	f := floor.Read()
	l.AddressSpace, l.AddressInUse, l.ThreadStack = f.AddressSpace, f.AddressInUse, f.ThreadStack
	if l.AddressSpace > 0 && cgoThreads {
		l.MallocArenas = mallocArenasLeft()
	}
	var rl unix.Rlimit
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
		if mi, err := os.ReadFile("/proc/self/mountinfo"); err == nil {
			l.Pids, l.PidsSet = pidsRoom(cg, mi)
		}
	}
	return l, nil
}

// mallocArenasLeft is how many more malloc arenas glibc will make: it gives
// each new thread one of its own until there are MALLOC_ARENA_MAX, by
// default 8 per online CPU (64-bit). Each thread there is now is taken to
// hold one already.
func mallocArenasLeft() int {
	limit := 0
	if v, err := strconv.Atoi(os.Getenv("MALLOC_ARENA_MAX")); err == nil && v > 0 {
		limit = v
	} else {
		limit = 8 * onlineCPUs()
	}
	return max(0, limit-threadsNow())
}

// onlineCPUs counts /sys/devices/system/cpu/online ("0-3,6"), what glibc's
// sysconf(_SC_NPROCESSORS_ONLN) counts; runtime.NumCPU where it cannot.
func onlineCPUs() int {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return runtime.NumCPU()
	}
	n := 0
	for _, r := range strings.Split(strings.TrimSpace(string(b)), ",") {
		lo, hi, found := strings.Cut(r, "-")
		a, err1 := strconv.Atoi(lo)
		z := a
		var err2 error
		if found {
			z, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || z < a {
			return runtime.NumCPU()
		}
		n += z - a + 1
	}
	return max(n, 1)
}

// threadsNow is Threads of /proc/self/status.
func threadsNow() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// pidsRoom is how many more tasks the pids controller lets this process's
// cgroup start: the least of pids.max - pids.current along its path up to
// the root, in cgroup v2 or v1's pids hierarchy (sysinfo.CgroupDirs, which
// the memory limit walks too).
func pidsRoom(procCgroup, mountinfo []byte) (int, bool) {
	room, set := 0, false
	for _, d := range sysinfo.CgroupDirs(procCgroup, mountinfo, "pids") {
		if r, ok := pidsLeft(d); ok && (!set || r < room) {
			room, set = r, true
		}
	}
	return room, set
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
