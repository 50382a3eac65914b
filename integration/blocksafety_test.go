//go:build linux

package integration

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// victim is a file of someone else's that a test aims clyde at: its
// checksum, mode and type must come out as they went in.
type victim struct {
	path, sum string
	mode      os.FileMode
}

// newVictim writes size bytes of patterned data, with mode, at path.
func newVictim(t *testing.T, path string, size int, mode os.FileMode) victim {
	t.Helper()
	b := bytes.Repeat([]byte("someone's data\n"), size/15+1)[:size]
	if err := os.WriteFile(path, b, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	return snapshot(t, path)
}

// snapshot records what path is now.
func snapshot(t *testing.T, path string) victim {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := fileSum(path)
	if err != nil {
		t.Fatal(err)
	}
	return victim{path: path, sum: sum, mode: fi.Mode()}
}

func (v victim) assertUnchanged(t *testing.T) {
	t.Helper()
	fi, err := os.Lstat(v.path)
	if err != nil {
		t.Fatalf("%s is gone: %v", v.path, err)
	}
	if fi.Mode() != v.mode {
		t.Errorf("%s: mode and type %v, were %v", v.path, fi.Mode(), v.mode)
	}
	if sum, err := fileSum(v.path); err != nil || sum != v.sum {
		t.Errorf("%s: content changed (sum %s, was %s, %v)", v.path, sum, v.sum, err)
	}
}

// mountedExt4Image makes an ext4 image, attaches it and mounts it; it
// returns the image, the loop device and the mount point.
func mountedExt4Image(t *testing.T) (img, dev, dir string) {
	t.Helper()
	needRoot(t)
	needTool(t, "mkfs.ext4", "e2fsprogs")
	img = newImage(t, 64)
	dev = attachLoop(t, img, false)
	sh(t, "mkfs.ext4", "-q", "-F", dev)
	dir = mountPoint(t)
	mount(t, dir, dev)
	populate(t, dir)
	return img, dev, dir
}

// TestBlockSafetyOnFiles aims clyde block writes at files that hold
// someone's data, as a user (or an attacker with a typo) would: each is
// refused with exit 2 and one line, and the file is left as it was.
func TestBlockSafetyOnFiles(t *testing.T) {
	t.Run("user's file without destroy-data", func(t *testing.T) {
		needRoot(t)
		v := newVictim(t, filepath.Join(t.TempDir(), "thesis.tex"), 4<<20, 0o640)
		assertRefused(t, blockWrite(t, v.path, false), v.path, "found an existing file", "--destroy-data")
		v.assertUnchanged(t)
		assertReadAllowed(t, v.path)
		v.assertUnchanged(t)
	})
	t.Run("user's file open for writing by another process, even with destroy-data", func(t *testing.T) {
		needRoot(t)
		v := newVictim(t, filepath.Join(t.TempDir(), "vm.qcow2"), 4<<20, 0o600)
		holdOpen(t, v.path, "write")
		assertRefused(t, blockWrite(t, v.path, true), v.path, "open for writing by process")
		v.assertUnchanged(t)
	})
	t.Run("image of a mounted loop ext4, even with destroy-data", func(t *testing.T) {
		img, dev, dir := mountedExt4Image(t)
		fi, _ := os.Lstat(img)
		before := listing(t, dir)
		assertRefused(t, blockWrite(t, img, true), img, img+" -> "+dev+" (loop device over it) -> mounted on "+dir)
		assertSameListing(t, dir, before)
		unmount(t, dir)
		assertFsckClean(t, img)
		if after, _ := os.Lstat(img); after == nil || after.Mode() != fi.Mode() || after.Size() != fi.Size() {
			t.Errorf("image mode or size changed: %v, was %v", after, fi)
		}
	})
	t.Run("second loop device over a mounted image, even with destroy-data", func(t *testing.T) {
		img, dev, dir := mountedExt4Image(t)
		second := attachLoop(t, img, false)
		assertRefused(t, blockWrite(t, second, true), second, second+" -> "+img+" (its backing file) -> "+dev+" (loop device over it) -> mounted on "+dir)
		unmount(t, dir)
		assertFsckClean(t, img)
	})
}

// openCount is how many of pid's descriptors are open on path's inode.
func openCount(pid int, path string) int {
	var want unix.Stat_t
	if unix.Stat(path, &want) != nil {
		return 0
	}
	fdDir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	fds, _ := os.ReadDir(fdDir)
	n := 0
	for _, fd := range fds {
		var st unix.Stat_t
		if unix.Stat(filepath.Join(fdDir, fd.Name()), &st) == nil && st.Dev == want.Dev && st.Ino == want.Ino {
			n++
		}
	}
	return n
}

// waitUntil polls cond until it holds, failing the test when clyde ends
// first.
func (r *running) waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-r.done:
			t.Fatalf("clyde ended (exit %d) before %s; stderr:\n%s", r.cmd.ProcessState.ExitCode(), what, r.stderr.String())
		case <-time.After(time.Millisecond):
		}
	}
}

// TestBlockCreatedFileReplaced renames someone's file over the one clyde
// created while the write job runs: clyde must leave the replacement (it
// deleted it before) and say so in one warning line.
func TestBlockCreatedFileReplaced(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "clyde.dat")
	r := startClyde(t, "block", "--filename", file, "--rw", "write", "--bs", "4k", "--size", "4m", "--runtime", "2")
	// The file's own descriptor plus the worker's: the job is running.
	r.waitUntil(t, "its worker opened the file", func() bool { return openCount(r.cmd.Process.Pid, file) >= 2 })
	v := newVictim(t, filepath.Join(dir, "report.pdf"), 1<<20, 0o600)
	if err := os.Rename(v.path, file); err != nil {
		t.Fatal(err)
	}
	v.path = file
	o := r.wait(t)
	if o.code != exitOK {
		t.Errorf("exit %d, want 0; stderr %q", o.code, o.stderr)
	}
	v.assertUnchanged(t)
	if n := strings.Count(o.stderr, "clyde: warning: "+file+" was replaced during the run"); n != 1 {
		t.Errorf("%d warning lines about the replacement, want 1; stderr %q", n, o.stderr)
	}
	if got := entries(t, dir); strings.Join(got, ",") != "clyde.dat" {
		t.Errorf("left %v, want only the replacement (the marker removed)", got)
	}
}

// TestBlockKillThenCleanup kills a block run with SIGKILL, which it cannot
// catch: the file it created stays, recognisable by its marker; the next
// run is refused with the cleanup command; the cleanup removes the file and
// the marker and nothing else.
func TestBlockKillThenCleanup(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "clyde.dat")
	marker := filepath.Join(dir, ".clyde.dat.clyde-run")
	neighbour := newVictim(t, filepath.Join(dir, "notes.txt"), 64<<10, 0o644)
	r := startClyde(t, "block", "--filename", file, "--rw", "randwrite", "--bs", "4k", "--size", "4m", "--runtime", "30")
	r.waitUntil(t, "the job started", func() bool { return openCount(r.cmd.Process.Pid, file) >= 2 })
	r.signal(t, syscall.SIGKILL)
	r.wait(t)
	for _, p := range []string{file, marker} {
		if _, err := os.Lstat(p); err != nil {
			t.Fatalf("after SIGKILL %s is gone: %v", p, err)
		}
	}

	o := runClyde(t, "block", "--filename", file, "--rw", "read", "--runtime", "100ms")
	if o.code != exitUsage {
		t.Errorf("run on the leftover: exit %d, want %d", o.code, exitUsage)
	}
	assertOneLineError(t, o.stderr, file, "killed", "clyde block --cleanup --filename "+file)

	o = runClyde(t, "block", "--cleanup", "--filename", file)
	if o.code != exitOK || o.stdout != "removed "+file+"\nremoved "+marker+"\n" {
		t.Errorf("cleanup: exit %d, stdout %q, stderr %q; want the file, then the marker, removed", o.code, o.stdout, o.stderr)
	}
	if got := entries(t, dir); strings.Join(got, ",") != "notes.txt" {
		t.Errorf("left %v, want only notes.txt", got)
	}
	neighbour.assertUnchanged(t)

	o = runClyde(t, "block", "--cleanup", "--filename", file)
	if o.code != exitOK || !strings.Contains(o.stdout, "nothing to clean up") {
		t.Errorf("second cleanup: exit %d, stdout %q", o.code, o.stdout)
	}
}

// entries lists dir's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	list, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name())
	}
	return names
}
