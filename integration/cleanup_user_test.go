//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
)

// worldDir is a directory anyone may write in, under a path anyone may
// walk, in scratch space of the test.
func worldDir(t *testing.T) string {
	t.Helper()
	parent, err := os.MkdirTemp("", "clyde-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(parent) })
	d := filepath.Join(parent, "d")
	if err := os.Mkdir(d, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, 0o777); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestFSUserWithDefaultHistory is case 11 of issue 20: `fs -u nobody` with
// the default history (under root's HOME) failed at its end. The run now
// goes without the history, says so in one note, and creates nothing under
// HOME.
func TestFSUserWithDefaultHistory(t *testing.T) {
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "-u needs root")
	}
	unprivilegedUser(t)
	home, dir := t.TempDir(), worldDir(t) // HOME: root's, mode 0700
	cmd := clydeCmd(nil, "fs", "-u", "nobody", "-d", dir, "-s", "0", "-n", "1", "-q")
	cmd.Env = append(cmd.Env, "HOME="+home, "XDG_DATA_HOME=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("fs -u nobody: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "not added to the default history") {
		t.Errorf("no note that the history was not kept:\n%s", out)
	}
	if es, _ := os.ReadDir(home); len(es) != 0 {
		t.Errorf("created under HOME: %v", es)
	}
}

// TestFSCleanupChecksFlags is case 11 of issue 20: --cleanup ignored every
// other flag, even an invalid one; it is refused as for a run.
func TestFSCleanupChecksFlags(t *testing.T) {
	dir := t.TempDir()
	o := runClyde(t, "fs", "--cleanup", "-d", dir, "-n", "1:0:0:0")
	if o.code != exitUsage {
		t.Fatalf("exit %d, want %d; stderr:\n%s", o.code, exitUsage, o.stderr)
	}
	assertOneLineError(t, o.stderr, "-n")
	for _, args := range [][]string{
		{"block", "--cleanup", "--filename", filepath.Join(dir, "F"), "--rw", "bogus"},
		{"copy", "--cleanup", "-d", dir, "--set", "bogus"},
	} {
		if o := runClyde(t, args...); o.code != exitUsage {
			t.Errorf("clyde %v: exit %d, want %d; stderr:\n%s", args, o.code, exitUsage, o.stderr)
		}
	}
	o = runClyde(t, "fs", "--cleanup", "-d", dir, "-u", "no-such-user-here")
	if o.code != exitUsage && o.code != exitFailed || !strings.Contains(o.stderr, "no-such-user-here") {
		t.Fatalf("exit %d, stderr %q: want -u's unknown user refused", o.code, o.stderr)
	}
}
