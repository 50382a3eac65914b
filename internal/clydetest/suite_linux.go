//go:build linux

package clydetest

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A suite root is the one directory a test binary that mounts filesystems
// and attaches loop devices keeps all of it under: its TMPDIR while it
// runs, so every t.TempDir, os.MkdirTemp("", ...), mount point, loop image
// and the clyde binary it built land inside. Its name,
// clyde-suite-NAME.RANDOM, and the marker file in it recognise it; the
// marker stays flock()ed while the binary lives, and the kernel drops the
// lock when the process ends however it ends (its -timeout, SIGKILL), so a
// root whose marker no process holds is a leftover of a dead run. The next
// run of the suite releases such roots before it starts.
const (
	suitePrefix = "clyde-suite-"
	suiteMarker = ".clyde-suite"
)

// Suite is the suite root of this test binary.
type Suite struct {
	// Dir is the root, the binary's TMPDIR.
	Dir    string
	base   string
	marker *os.File
	stop   func() bool
}

// StartSuite sweeps what dead runs of the suite name left under the
// temporary directory (Sweep), then makes this binary's root, holds its
// marker and sets TMPDIR to it. When the binary has a -test.timeout,
// everything mounted or attached under the root is released shortly before
// that timeout fires (the test binary then panics without running any
// cleanup); the next run's sweep removes the directory. Call it from
// TestMain after flag.Parse, and Close the suite after m.Run.
func StartSuite(name string, timeout time.Duration) (*Suite, error) {
	base := os.TempDir()
	if rep, err := Sweep(base, name); err != nil {
		return nil, fmt.Errorf("sweep the leftovers of earlier %s runs: %w", name, err)
	} else if !rep.Empty() {
		fmt.Fprintf(os.Stderr, "clydetest: released what dead %s runs left: %s\n", name, rep)
	}
	dir, err := os.MkdirTemp(base, suitePrefix+name+".")
	if err != nil {
		return nil, err
	}
	// /tmp's own mode: tests run clyde as another user, which walks to its
	// binary and mount points here and may make files of its own.
	if err := os.Chmod(dir, 0o1777); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// The marker is locked before it has its name: a sweep starting at the
	// same moment never finds it unlocked.
	tmp := filepath.Join(dir, suiteMarker+".new")
	marker, err := os.OpenFile(tmp, os.O_CREATE|os.O_RDWR|os.O_EXCL, 0o600)
	if err == nil {
		err = unix.Flock(int(marker.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	}
	if err == nil {
		_, err = fmt.Fprintf(marker, "%d\n", os.Getpid())
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, suiteMarker))
	}
	if err != nil {
		if marker != nil {
			marker.Close()
		}
		os.RemoveAll(dir)
		return nil, fmt.Errorf("suite marker in %s: %w", dir, err)
	}
	s := &Suite{Dir: dir, base: base, marker: marker}
	if err := os.Setenv("TMPDIR", dir); err != nil {
		s.Close()
		return nil, err
	}
	if timeout > 0 {
		// Late enough that no test is cut short that would have finished,
		// early enough to release before the panic.
		margin := min(timeout/20, 30*time.Second)
		tm := time.AfterFunc(timeout-margin, func() {
			fmt.Fprintf(os.Stderr, "clydetest: the %v test timeout is %v away: releasing the mounts and loop devices under %s\n", timeout, margin, dir)
			if rep, err := release(dir, false); err != nil || !rep.Empty() {
				fmt.Fprintf(os.Stderr, "clydetest: released %s (%v)\n", rep, err)
			}
		})
		s.stop = tm.Stop
	}
	return s, nil
}

// Close releases anything the tests left mounted or attached under the
// root (reporting it: a test's own cleanup should have), removes the root
// and restores TMPDIR.
func (s *Suite) Close() error {
	if s.stop != nil {
		s.stop()
	}
	os.Setenv("TMPDIR", s.base)
	rep, err := release(s.Dir, false)
	if !rep.Empty() {
		fmt.Fprintf(os.Stderr, "clydetest: the tests left %s; released\n", rep)
	}
	if err == nil {
		err = removeRoot(s.Dir)
	}
	s.marker.Close()
	return err
}

// SweepReport says what a sweep released.
type SweepReport struct {
	Roots, Mounts, Loops, Killed []string
}

// Empty reports whether the sweep found nothing to release.
func (r SweepReport) Empty() bool {
	return len(r.Roots)+len(r.Mounts)+len(r.Loops)+len(r.Killed) == 0
}

func (r SweepReport) String() string {
	var parts []string
	for _, p := range []struct {
		what string
		list []string
	}{{"processes", r.Killed}, {"mounts", r.Mounts}, {"loop devices", r.Loops}, {"directories", r.Roots}} {
		if len(p.list) > 0 {
			parts = append(parts, fmt.Sprintf("%d %s (%s)", len(p.list), p.what, strings.Join(p.list, ", ")))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, "; ")
}

func (r *SweepReport) add(o SweepReport) {
	r.Roots = append(r.Roots, o.Roots...)
	r.Mounts = append(r.Mounts, o.Mounts...)
	r.Loops = append(r.Loops, o.Loops...)
	r.Killed = append(r.Killed, o.Killed...)
}

// Sweep releases the roots of suite name under base whose marker no live
// process holds: it kills the processes still running the dead run's clyde
// binary or working inside its root, unmounts every mount under the root,
// detaches every loop device whose backing file is under it, and removes
// it. A root whose marker is held belongs to a run in progress (another
// worktree's, another suite at once) and is left alone, as is anything
// outside the roots.
func Sweep(base, name string) (SweepReport, error) {
	var rep SweepReport
	dirs, err := filepath.Glob(filepath.Join(base, suitePrefix+name+".*"))
	if err != nil {
		return rep, err
	}
	var errs []error
	for _, dir := range dirs {
		marker, err := os.Open(filepath.Join(dir, suiteMarker))
		if err != nil {
			continue // not a suite root, or one still being made
		}
		err = unix.Flock(int(marker.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err != nil {
			marker.Close()
			continue // a live run's
		}
		r, err := release(dir, true)
		rep.add(r)
		if err == nil {
			err = removeRoot(dir)
		}
		if err == nil {
			rep.Roots = append(rep.Roots, dir)
		}
		marker.Close()
		errs = append(errs, err)
	}
	return rep, errors.Join(errs...)
}

// release undoes, under dir, what tests mount and attach; kill also ends
// the processes of a dead run still there.
func release(dir string, kill bool) (SweepReport, error) {
	var rep SweepReport
	var errs []error
	if kill {
		rep.Killed = killUnder(dir)
	}
	mounts, err := mountsUnder(dir)
	if err != nil {
		return rep, err
	}
	for _, m := range mounts {
		if err := unix.Unmount(m, 0); err != nil {
			if err := unix.Unmount(m, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT) {
				errs = append(errs, fmt.Errorf("umount %s: %w", m, err))
				continue
			}
		}
		rep.Mounts = append(rep.Mounts, m)
	}
	loops, err := loopsUnder(dir)
	if err != nil {
		errs = append(errs, err)
	}
	for _, dev := range loops {
		if err := detachLoop(dev); err != nil {
			errs = append(errs, err)
			continue
		}
		rep.Loops = append(rep.Loops, dev)
	}
	return rep, errors.Join(errs...)
}

// removeRoot removes a released root, never while anything is still
// mounted under it: RemoveAll would go into the mounted filesystem.
func removeRoot(dir string) error {
	mounts, err := mountsUnder(dir)
	if err != nil {
		return err
	}
	if len(mounts) > 0 {
		return fmt.Errorf("%s still has %v mounted under it; not removing it", dir, mounts)
	}
	// chattr +i and the like are not used by the suites; a file another
	// user owns is root's to remove.
	return os.RemoveAll(dir)
}

// under reports whether path is dir or inside it.
func under(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// mountsUnder lists the mount points at or under dir in this mount
// namespace, deepest (latest mounted) first.
func mountsUnder(dir string) ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		if p := unescapeMount(fields[4]); under(p, dir) {
			out = append(out, p)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	// mountinfo lists mounts in the order they were made: undo in reverse,
	// so a mount on top of another goes first.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// loopsUnder lists the loop devices whose backing file is under dir (as
// the kernel names it, " (deleted)" once the image is gone).
func loopsUnder(dir string) ([]string, error) {
	files, err := filepath.Glob("/sys/block/loop*/loop/backing_file")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // detached meanwhile
		}
		backing := strings.TrimSuffix(strings.TrimSpace(string(b)), " (deleted)")
		if under(backing, dir) {
			out = append(out, "/dev/"+filepath.Base(filepath.Dir(filepath.Dir(f))))
		}
	}
	sort.Strings(out)
	return out, nil
}

// detachLoop is losetup --detach: a device still in use (a lazily
// unmounted filesystem on it) is detached by the kernel when its last user
// lets go.
func detachLoop(dev string) error {
	fd, err := unix.Open(dev, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENXIO) {
			return nil
		}
		return fmt.Errorf("open %s: %w", dev, err)
	}
	defer unix.Close(fd)
	if err := unix.IoctlSetInt(fd, unix.LOOP_CLR_FD, 0); err != nil && !errors.Is(err, unix.ENXIO) {
		return fmt.Errorf("detach %s: %w", dev, err)
	}
	return nil
}

// killUnder SIGKILLs the processes whose executable, working directory or
// root is under dir (a dead run's clyde, built into its root, and whatever
// it started there) and waits for them to go, so their mounts can be
// released.
func killUnder(dir string) []string {
	var killed []string
	var pids []int
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		for _, link := range []string{"exe", "cwd", "root"} {
			target, err := os.Readlink(filepath.Join("/proc", p.Name(), link))
			if err == nil && under(strings.TrimSuffix(target, " (deleted)"), dir) && target != "/" {
				if syscall.Kill(pid, syscall.SIGKILL) == nil {
					killed = append(killed, strconv.Itoa(pid))
					pids = append(pids, pid)
				}
				break
			}
		}
	}
	for _, pid := range pids {
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			if !alive(pid) {
				break
			}
		}
	}
	return killed
}

// alive reports whether pid runs still (a zombie waits only to be reaped).
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	rest := string(b[strings.LastIndexByte(string(b), ')')+1:])
	f := strings.Fields(rest)
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}
