//go:build linux

package integration

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
)

// Run sizes for the interrupt tests on tmpfs: 256-byte chunks and many seeks
// and files, so every phase lasts far longer than a signal takes to land.
var (
	longIOArgs    = []string{"-s", "96:256:300000", "-f1", "-n", "0", "-r", "0"}
	longFilesArgs = []string{"-s", "0", "-n", "96:0:0:4", "-r", "0"}
)

// TestSignalsInEachPhase sends SIGINT, SIGTERM and SIGHUP right after each
// phase's progress words (clyde is held with SIGSTOP so the signal lands
// inside the phase however short it is): clyde must stop with 130, say in
// one line which phase it stopped in, report what finished, and leave the
// filesystem as it was. Each signal is a test of its own and each case
// runs in parallel with the others on a tmpfs of its own, so no one test
// holds the suite for the 36 runs.
func TestSignalsInEachPhase(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			signalInEachPhase(t, sig)
		})
	}
}

func signalInEachPhase(t *testing.T, sig syscall.Signal) {
	for i, ph := range phases {
		t.Run(ph.name, func(t *testing.T) {
			t.Parallel()
			fs := makeFS(t, tmpfs, 512)
			populate(t, fs.dir)
			before := listing(t, fs.dir)
			jsonPath := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"fs", "-d", fs.dir, "-z", "3", "--json", jsonPath}, longIOArgs...)
			if i >= 6 {
				args = append([]string{"fs", "-d", fs.dir, "-z", "3", "--json", jsonPath}, longFilesArgs...)
			}
			r := startClyde(t, args...)
			r.pauseAt(t, ph.word)
			r.signal(t, sig)
			r.resume(t)
			o := r.wait(t)
			if o.code != exitInterrupted {
				t.Errorf("exit %d, want %d", o.code, exitInterrupted)
			}
			assertOneLineError(t, o.stderr, "interrupted", ph.name)
			if !strings.Contains(o.stdout, "1.98,clyde,") {
				t.Errorf("no report of what finished on stdout: %q", o.stdout)
			}
			res := readFSResult(t, jsonPath)
			if !res.Interrupted || len(res.Runs) != 1 {
				t.Fatalf("JSON interrupted %v runs %d, want an interrupted run", res.Interrupted, len(res.Runs))
			}
			tests := res.Runs[0].Tests
			if !tests[i].Interrupted {
				t.Errorf("JSON does not mark %s interrupted", tests[i].Name)
			}
			first := 0
			if i >= 6 {
				first = 6
			}
			for k := first; k < i; k++ {
				if !tests[k].Ran || tests[k].RatePerSec <= 0 {
					t.Errorf("%s finished before the signal but JSON has ran %v rate %v", tests[k].Name, tests[k].Ran, tests[k].RatePerSec)
				}
			}
			assertSameListing(t, fs.dir, before)
		})
	}
}

// TestKillThenCleanup kills clyde with SIGKILL, which it cannot catch, and
// checks `clyde fs --cleanup` removes exactly what the run left.
func TestKillThenCleanup(t *testing.T) {
	fs := makeFS(t, ext4, 256)
	populate(t, fs.dir)
	before := listing(t, fs.dir)
	for _, tc := range []struct {
		word string
		args []string
	}{
		{"Writing intelligently...", []string{"-s", "96:256", "-f", "-n", "0", "-r", "0"}},
		{"Create files in sequential order...", []string{"-s", "0", "-n", "32:1k:0:4", "-r", "0"}},
	} {
		t.Run(tc.word, func(t *testing.T) {
			r := startClyde(t, append([]string{"fs", "-d", fs.dir}, tc.args...)...)
			r.waitFor(t, tc.word)
			r.signal(t, syscall.SIGKILL)
			r.wait(t)
			left, _ := filepath.Glob(filepath.Join(fs.dir, "clyde.*"))
			if len(left) != 1 {
				t.Fatalf("after SIGKILL %d private directories, want the run's one: %v", len(left), left)
			}
			o := runClyde(t, "fs", "--cleanup", "-d", fs.dir)
			if o.code != exitOK || o.stdout != "removed "+left[0]+"\n" {
				t.Errorf("--cleanup: exit %d stdout %q stderr %q, want it to remove %s", o.code, o.stdout, o.stderr, left[0])
			}
			assertSameListing(t, fs.dir, before)
		})
	}
	unmount(t, fs.dir)
	if out, err := exec.Command("e2fsck", "-fn", fs.dev).CombinedOutput(); err != nil {
		t.Errorf("e2fsck -fn after kills and cleanup: %v\n%s", err, out)
	}
}

// TestENOSPCInEachWritingPhase fills the filesystem with a ballast file the
// moment a phase starts (after clyde's preflight accepted the run; clyde is
// held with SIGSTOP meanwhile), so that phase is the one that meets ENOSPC. Only phases that allocate can: the
// read, stat and delete phases never ask for space.
func TestENOSPCInEachWritingPhase(t *testing.T) {
	cases := []struct {
		name    string
		kind    fsKind
		sizeMiB int
		args    []string
		phase   int // index into phases
		// snapshot takes a btrfs snapshot when the phase starts, as a
		// snapper-managed home server would: the big file's extents are
		// then shared, so rewriting it in place needs new space. Without
		// it btrfs frees each old extent as it rewrites and never fills.
		snapshot bool
	}{
		{"per-char write on tmpfs", tmpfs, 128, []string{"-s", "64", "-f16", "-n", "0"}, 0, false},
		{"block write on tmpfs", tmpfs, 192, []string{"-s", "128:256", "-f", "-n", "0"}, 1, false},
		{"block write on ext4", ext4, 256, []string{"-s", "128:256", "-f", "-n", "0"}, 1, false},
		{"rewrite on btrfs with a snapshot", btrfs, 320, []string{"-s", "96:4k", "-f", "-n", "0"}, 2, true},
		{"random seeks on btrfs (copy on write)", btrfs, 320, []string{"-s", "96:4k:200000", "-f", "-n", "0"}, 5, false},
		{"sequential create on tmpfs", tmpfs, 384, []string{"-s", "0", "-n", "64:4k:4k:4"}, 6, false},
		{"random create on tmpfs", tmpfs, 384, []string{"-s", "0", "-n", "64:4k:4k:4"}, 9, false},
		{"sequential create on xfs", xfs, 320, []string{"-s", "0", "-n", "32:4k:4k:4"}, 6, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := makeFS(t, tc.kind, tc.sizeMiB)
			populate(t, fs.dir)
			before := listing(t, fs.dir)
			r := startClyde(t, append([]string{"fs", "-d", fs.dir, "-r", "0", "-z", "5"}, tc.args...)...)
			r.pauseAt(t, phases[tc.phase].word)
			snap := filepath.Join(fs.dir, "snapshot")
			if tc.snapshot {
				sh(t, "btrfs", "subvolume", "snapshot", "-r", fs.dir, snap)
			}
			full := ballast(t, fs.dir)
			r.resume(t)
			o := r.wait(t)
			if o.code != exitFailed {
				t.Errorf("exit %d, want %d; stderr:\n%s", o.code, exitFailed, o.stderr)
			}
			assertOneLineError(t, o.stderr, "clyde: "+phases[tc.phase].name+": ", "no space left on device")
			if err := os.Remove(full); err != nil {
				t.Fatal(err)
			}
			if tc.snapshot {
				sh(t, "btrfs", "subvolume", "delete", snap)
			}
			assertSameListing(t, fs.dir, before)
		})
	}
	t.Run("preflight refuses a run that cannot fit", func(t *testing.T) {
		fs := makeFS(t, tmpfs, 32)
		populate(t, fs.dir)
		before := listing(t, fs.dir)
		o := runClyde(t, "fs", "-d", fs.dir, "-s", "64", "-r", "0", "-n", "0")
		if o.code != exitUsage {
			t.Errorf("exit %d, want %d", o.code, exitUsage)
		}
		assertOneLineError(t, o.stderr, "clyde: preflight: ", "only", "free", "-s")
		assertSameListing(t, fs.dir, before)
	})
}

// TestReadOnlyMidRun makes the filesystem read-only under a running clyde.
// clyde must fail in one line naming the phase; it cannot remove its files
// from a read-only filesystem, so the error must say what it left and
// `clyde fs --cleanup` must remove exactly that once the filesystem is
// writable again.
//
// `mount -o remount,ro` is refused (EBUSY) while any file is open for
// writing, so it is used when clyde has none open: as it starts to stat its
// small files.
// To turn a filesystem read-only while the big file is open for writing, the
// way a failing disk does, ext4 is mounted with errors=remount-ro and told
// to report an error through /sys/fs/ext4/<dev>/trigger_fs_error; and xfs is
// shut down with xfs_io's shutdown command (every call then fails with EIO).
func TestReadOnlyMidRun(t *testing.T) {
	t.Run("tmpfs remounted read-only during sequential stat", func(t *testing.T) {
		fs := makeFS(t, tmpfs, 256)
		populate(t, fs.dir)
		before := listing(t, fs.dir)
		r := startClyde(t, "fs", "-d", fs.dir, "-s", "0", "-n", "96:0:0:4", "-r", "0")
		r.pauseAt(t, phases[7].word)
		fs.remount(t, "ro")
		r.resume(t)
		o := r.wait(t)
		assertReadOnlyFailure(t, o, "sequential delete", "read-only file system")
		fs.remount(t, "rw")
		assertCleanupRemovesLeftover(t, fs.dir, before)
	})
	t.Run("ext4 turned read-only by an error during block write", func(t *testing.T) {
		fs := makeFS(t, ext4, 256, "errors=remount-ro")
		trigger := filepath.Join("/sys/fs/ext4", filepath.Base(fs.dev), "trigger_fs_error")
		if _, err := os.Stat(trigger); err != nil {
			clydetest.Skipf(t, "this kernel cannot inject an ext4 error: %v", err)
		}
		populate(t, fs.dir)
		before := listing(t, fs.dir)
		r := startClyde(t, "fs", "-d", fs.dir, "-s", "128:256", "-f", "-n", "0", "-r", "0")
		r.pauseAt(t, phases[1].word)
		if err := os.WriteFile(trigger, []byte("clyde integration test\n"), 0); err != nil {
			t.Fatalf("trigger ext4 error: %v", err)
		}
		r.resume(t)
		o := r.wait(t)
		assertReadOnlyFailure(t, o, "block write", "read-only file system")
		// The error is recorded in the superblock: repair it as an admin
		// would, then mount again.
		unmount(t, fs.dir)
		if out, err := exec.Command("e2fsck", "-fy", fs.dev).CombinedOutput(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() > 1 {
				t.Fatalf("e2fsck -fy: %v\n%s", err, out)
			}
		}
		mount(t, fs.dir, fs.dev)
		assertCleanupRemovesLeftover(t, fs.dir, before)
	})
	t.Run("xfs shut down during rewrite", func(t *testing.T) {
		needTool(t, "xfs_io", "xfsprogs")
		fs := makeFS(t, xfs, 320)
		populate(t, fs.dir)
		before := listing(t, fs.dir)
		r := startClyde(t, "fs", "-d", fs.dir, "-s", "96:256", "-f", "-n", "0", "-r", "0")
		r.pauseAt(t, phases[2].word)
		sh(t, "xfs_io", "-x", "-c", "shutdown", fs.dir)
		r.resume(t)
		o := r.wait(t)
		assertReadOnlyFailure(t, o, "rewrite", "input/output error")
		unmount(t, fs.dir)
		mount(t, fs.dir, fs.dev)
		assertCleanupRemovesLeftover(t, fs.dir, before)
	})
}

// assertReadOnlyFailure checks clyde failed in phase with cause, in one line
// that also names what it could not remove.
func assertReadOnlyFailure(t *testing.T, o outcome, phase, cause string) {
	t.Helper()
	if o.code != exitFailed {
		t.Errorf("exit %d, want %d", o.code, exitFailed)
	}
	assertOneLineError(t, o.stderr, "clyde: "+phase+": ", cause, "clyde fs --cleanup")
}

// assertCleanupRemovesLeftover runs clyde fs --cleanup and checks the
// filesystem is back to what it held before the run.
func assertCleanupRemovesLeftover(t *testing.T, dir string, before []string) {
	t.Helper()
	o := runClyde(t, "fs", "--cleanup", "-d", dir)
	if o.code != exitOK {
		t.Errorf("--cleanup: exit %d stderr %q", o.code, o.stderr)
	}
	assertSameListing(t, dir, before)
}

// TestPermissionDenied runs clyde as a user who cannot write the target: it
// must refuse before writing anything, in one line. --no-history: the
// default history is root's, which the user cannot write either, and that
// is refused before the run too (see TestRefusedBeforeTheRun in cmd/clyde).
func TestPermissionDenied(t *testing.T) {
	fs := makeFS(t, tmpfs, 64, "mode=0755")
	populate(t, fs.dir)
	before := listing(t, fs.dir)
	uid, gid := unprivilegedUser(t)
	t.Run("started as the user", func(t *testing.T) {
		needTool(t, "setpriv", "util-linux")
		o := runClydeAs(t, []string{"setpriv", "--reuid=" + uid, "--regid=" + gid, "--clear-groups"},
			"fs", "-d", fs.dir, "-s", "8", "-r", "0", "-n", "1", "--no-history")
		if o.code != exitUsage {
			t.Errorf("exit %d, want %d", o.code, exitUsage)
		}
		assertOneLineError(t, o.stderr, "clyde: preflight: ", fs.dir, "permission denied")
		assertSameListing(t, fs.dir, before)
	})
	t.Run("root dropping to the user with -u", func(t *testing.T) {
		o := runClyde(t, "fs", "-d", fs.dir, "-s", "8", "-r", "0", "-n", "1", "-u", uid+":"+gid, "--no-history")
		if o.code != exitUsage {
			t.Errorf("exit %d, want %d", o.code, exitUsage)
		}
		assertOneLineError(t, o.stderr, "clyde: preflight: ", fs.dir, "permission denied")
		assertSameListing(t, fs.dir, before)
	})
}

// unprivilegedUser is nobody's uid and gid, which every Debian system has.
func unprivilegedUser(t *testing.T) (uid, gid string) {
	t.Helper()
	out, err := exec.Command("id", "-u", "nobody").Output()
	if err != nil {
		clydetest.Skipf(t, "no user nobody to run as: %v", err)
	}
	uid = strings.TrimSpace(string(out))
	out, err = exec.Command("id", "-g", "nobody").Output()
	if err != nil {
		clydetest.Skipf(t, "no group for nobody: %v", err)
	}
	return uid, strings.TrimSpace(string(out))
}
