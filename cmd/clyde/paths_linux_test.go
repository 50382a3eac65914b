//go:build linux

package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/proc"
)

// The cases of issue 20's "trust in paths owned by others", as written:
// the other user is nobody (uid 65534), who plants files with a real
// process of its own; clyde runs as root.

const nobodyUID = 65534

// sharedScratch is S: a directory the other user can reach, with a sticky
// world-writable S/sticky in it (as /tmp is).
func sharedScratch(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "needs root: the files are planted by another user (uid 65534)")
	}
	s := t.TempDir()
	for _, d := range []string{filepath.Dir(s), s} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(s, "sticky"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(s, "sticky"), 0o1777); err != nil {
		t.Fatal(err)
	}
	return s
}

// asNobody runs script as uid 65534, as a real process of that user.
func asNobody(t *testing.T, script string, env ...string) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobodyUID, Gid: nobodyUID}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("as nobody: %s: %v: %s", script, err, out)
	}
}

// rootFile writes a root-only file of n bytes and returns its path.
func rootFile(t *testing.T, path string, n int) []byte {
	t.Helper()
	b := []byte(strings.Repeat("root's data\n", n/12+1))[:n]
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return b
}

func unchanged(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != string(want) {
		t.Fatalf("%s was changed (%v): %d bytes, first %q", path, err, len(got), got[:min(len(got), 24)])
	}
}

// Case 4: another user's symlink in a sticky directory to root's file.
func TestCase4OtherUsersSymlinkIsNotFollowed(t *testing.T) {
	s := sharedScratch(t)
	secret := filepath.Join(s, "secret")
	want := rootFile(t, secret, 1<<20)
	asNobody(t, `ln -s "$S/secret" "$S/sticky/test.dat"`, "S="+s)
	code, stdout, stderr := runClyde(t, "block", "--filename", filepath.Join(s, "sticky", "test.dat"),
		"--rw", "write", "--destroy-data", "--size", "0", "--runtime", "1s", "--no-history")
	if code != 2 || !strings.Contains(stderr, "another user's symlink") {
		t.Errorf("exit %d, stderr %q; want exit 2 naming another user's symlink (stdout %q)", code, stderr, stdout)
	}
	unchanged(t, secret, want)
}

// plantMarker writes, as nobody, a marker for name in dir describing
// target's dev, ino and size with a dead pid.
func plantMarker(t *testing.T, dir, name, target string, start time.Time) {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(target, &st); err != nil {
		t.Fatal(err)
	}
	m := map[string]any{"tool": "clyde", "kind": "block-target", "file": name, "pid": math.MaxInt32 - 1,
		"host": proc.Host(), "start": start, "dev": st.Dev, "ino": st.Ino, "size": st.Size}
	b, _ := json.Marshal(m)
	asNobody(t, `umask 077; printf '%s\n' "$M" > "$D/.$N.clyde-run"`, "M="+string(b), "D="+dir, "N="+name)
}

// Case 5: a marker planted by another user naming root's file does not
// make --cleanup delete it; nor does a start time of 0.
func TestCase5PlantedMarkerDoesNotRemove(t *testing.T) {
	for _, c := range []struct {
		name  string
		start time.Time
	}{
		{"dead pid, recent start", time.Now().Add(-time.Hour)},
		{"start time 0", time.Unix(0, 0)},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := sharedScratch(t)
			sticky := filepath.Join(s, "sticky")
			victim := filepath.Join(sticky, "root.dat")
			want := rootFile(t, victim, 8192)
			plantMarker(t, sticky, "root.dat", victim, c.start)
			code, stdout, stderr := runClyde(t, "block", "--cleanup", "--filename", victim)
			if strings.Contains(stdout+stderr, "removed") || code == 0 {
				t.Errorf("exit %d, stdout %q, stderr %q; want the cleanup refused, nothing removed", code, stdout, stderr)
			}
			if !strings.Contains(stderr, "not a marker clyde wrote") {
				t.Errorf("stderr %q; want it to say the marker is not clyde's", stderr)
			}
			unchanged(t, victim, want)
		})
	}
}

// Case 6: output paths and --db through another user's symlink: in
// node-exporter's textfile directory (owned by its user, not sticky), and
// in a sticky directory.
func TestCase6OutputsThroughOtherUsersSymlink(t *testing.T) {
	s := sharedScratch(t)
	secret := filepath.Join(s, "secret")
	want := rootFile(t, secret, 4096)
	empty := filepath.Join(s, "empty")
	rootFile(t, empty, 0)
	textfile := filepath.Join(s, "textfile")
	if err := os.Mkdir(textfile, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(textfile, nobodyUID, nobodyUID); err != nil {
		t.Fatal(err)
	}
	asNobody(t, `ln -s "$S/secret" "$S/textfile/clyde.prom" && ln -s "$S/secret" "$S/textfile/r.json" && ln -s "$S/empty" "$S/sticky/h.db"`, "S="+s)
	target := filepath.Join(s, "new.dat")
	for _, c := range []struct {
		name string
		args []string
		flag string
	}{
		{"--prom-textfile", []string{"--prom-textfile", filepath.Join(textfile, "clyde.prom"), "--no-history"}, "--prom-textfile"},
		{"--output", []string{"--output", filepath.Join(textfile, "r.json"), "--no-history"}, "--output"},
		{"--db in a sticky dir", []string{"--db", filepath.Join(s, "sticky", "h.db")}, "--db"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"block", "--filename", target, "--size", "1m", "--runtime", "1s"}, c.args...)
			code, _, stderr := runClyde(t, args...)
			if code != 2 || !strings.Contains(stderr, c.flag) || !strings.Contains(stderr, "65534") {
				t.Errorf("exit %d, stderr %q; want exit 2 naming %s and the other user's uid", code, stderr, c.flag)
			}
			if _, err := os.Lstat(target); err == nil {
				t.Errorf("the refused run created %s", target)
			}
		})
	}
	code, _, stderr := runClyde(t, "report", "-o", filepath.Join(textfile, "r.json"), "../../testdata/result/fs.json")
	if code != 2 || !strings.Contains(stderr, "65534") {
		t.Errorf("report -o: exit %d, stderr %q; want exit 2 naming the other user's uid", code, stderr)
	}
	unchanged(t, secret, want)
	unchanged(t, empty, nil)
}

// Case 7: a FIFO planted as a marker hangs neither a run nor --cleanup:
// the built binary runs under a deadline only so that a regression fails
// instead of hanging the suite.
func TestCase7FIFOMarkerDoesNotHang(t *testing.T) {
	s := sharedScratch(t)
	sticky := filepath.Join(s, "sticky")
	asNobody(t, `mkfifo "$D/.f.dat.clyde-run"`, "D="+sticky)
	f := filepath.Join(sticky, "f.dat")
	for _, args := range [][]string{
		{"block", "--filename", f, "--size", "1m", "--runtime", "1s", "--no-history"},
		{"block", "--cleanup", "--filename", f},
	} {
		t.Run(args[1], func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, clydeBin, args...)
			cmd.Env = append(os.Environ(), "CLYDE_DB="+filepath.Join(t.TempDir(), "h.db"))
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("clyde %v hung on the FIFO marker: %s", args, out)
			}
			if err == nil || !strings.Contains(string(out), "FIFO") {
				t.Errorf("clyde %v: %v, %q; want a refusal naming the FIFO", args, err, out)
			}
		})
	}
	if fi, err := os.Lstat(filepath.Join(sticky, ".f.dat.clyde-run")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the planted FIFO was touched: %v", err)
	}
}

// TestEmptyOutputRefused is case 15's empty --output: an empty path given
// is refused as one, not taken for "no output file".
func TestEmptyOutputRefused(t *testing.T) {
	target := filepath.Join(t.TempDir(), "f.dat")
	for _, args := range [][]string{
		{"block", "--filename", target, "--size", "1m", "--runtime", "1s", "--no-history", "--output", ""},
		{"block", "--filename", target, "--size", "1m", "--runtime", "1s", "--no-history", "--prom-textfile", ""},
		{"report", "--output", "", "../../testdata/result/fs.json"},
	} {
		code, _, stderr := runClyde(t, args...)
		if code != 2 || !strings.Contains(stderr, "empty path") {
			t.Errorf("clyde %v: exit %d, stderr %q; want exit 2 saying empty path", args, code, stderr)
		}
	}
	if _, err := os.Lstat(target); err == nil {
		t.Errorf("a refused run created %s", target)
	}
}

// TestProcFilesAreNotEmpty is case 15's "/proc files called empty": a
// procfs file reports a size of 0 whatever it holds, and is named for what
// it is.
func TestProcFilesAreNotEmpty(t *testing.T) {
	code, _, stderr := runClyde(t, "report", "/proc/self/status")
	if code != 2 || !strings.Contains(stderr, "procfs") || strings.Contains(stderr, "empty") {
		t.Errorf("report /proc/self/status: exit %d, stderr %q; want exit 2 naming procfs, not calling it empty", code, stderr)
	}
}

// TestFailedPrepareKeepsOutput is case 15's "a run that fails at prepare
// replaces the previous output file": the test file cannot be filled on a
// 1 MiB tmpfs, nothing is measured, and --output keeps what it held.
func TestFailedPrepareKeepsOutput(t *testing.T) {
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "needs root: mounts a 1 MiB tmpfs")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt).CombinedOutput(); err != nil {
		clydetest.Skipf(t, "cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	out := filepath.Join(t.TempDir(), "report.txt")
	if err := os.WriteFile(out, []byte("previous\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runClyde(t, "block", "--filename", filepath.Join(mnt, "f"), "--size", "4m", "--runtime", "1s",
		"--no-history", "--output", out)
	if code == 0 {
		t.Fatalf("a 4 MiB file on a 1 MiB tmpfs ran (stderr %q)", stderr)
	}
	unchanged(t, out, []byte("previous\n"))
}
