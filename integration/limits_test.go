//go:build linux

package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
)

// makeCgroup makes a cgroup of its own with file set to value, in cgroup v2
// when this machine has it with the controller, else in v1's hierarchy of
// the controller; it returns the cgroup.procs to move a process into. The
// test skips, saying why, where neither can be made (not root, no cgroup
// filesystem).
func makeCgroup(t *testing.T, controller, v2file, v1file, value string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "making a cgroup needs root")
	}
	root, file := "/sys/fs/cgroup", v2file
	if b, err := os.ReadFile(filepath.Join(root, "cgroup.subtree_control")); err != nil || !strings.Contains(string(b), controller) {
		root, file = filepath.Join("/sys/fs/cgroup", controller), v1file
		if _, err := os.Stat(filepath.Join(root, "cgroup.procs")); err != nil {
			clydetest.Skipf(t, "no cgroup v2 with the %s controller and no v1 %s hierarchy here", controller, controller)
		}
	}
	dir := filepath.Join(root, fmt.Sprintf("clyde-test-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-")))
	if err := os.Mkdir(dir, 0o755); err != nil {
		clydetest.Skipf(t, "cannot make a cgroup: %v", err)
	}
	t.Cleanup(func() { _ = os.Remove(dir) }) // after the process in it has ended
	if err := os.WriteFile(filepath.Join(dir, file), []byte(value), 0o644); err != nil {
		clydetest.Skipf(t, "cannot set %s: %v", file, err)
	}
	return filepath.Join(dir, "cgroup.procs")
}

// inShell runs clyde from sh after setup (a ulimit, moving into a cgroup).
func inShell(setup string) []string {
	return []string{"sh", "-c", setup + `; exec "$0" "$@"`}
}

// TestLimitsCheckedFirst is case 10 of issue 20 as written: each of these
// crashed with a Go stack dump (or an OOM kill) and left the test file. Now
// each is refused in one line naming the limit, and nothing is created.
func TestLimitsCheckedFirst(t *testing.T) {
	block := func(dir string, extra ...string) []string {
		return append([]string{"block", "--filename", filepath.Join(dir, "F"), "--size", "16MiB", "--rw", "randread",
			"--runtime", "1s", "--no-history"}, extra...)
	}
	cases := []struct {
		name  string
		setup func(t *testing.T) string
		args  func(dir string) []string
		want  string
	}{
		{"ulimit -n 10", func(*testing.T) string { return "ulimit -n 10" }, func(dir string) []string { return block(dir) }, "ulimit -n"},
		{"ulimit -v with 64 workers", func(*testing.T) string { return "ulimit -v 1600000" },
			func(dir string) []string { return block(dir, "--numjobs", "64") }, "RLIMIT_AS"},
		{"--numjobs 1000 under pids.max 300", func(t *testing.T) string {
			return "echo $$ > " + makeCgroup(t, "pids", "pids.max", "pids.max", "300")
		}, func(dir string) []string { return block(dir, "--numjobs", "1000") }, "pids.max"},
		{"--numjobs 600 under a 300 MiB cgroup", func(t *testing.T) string {
			return "echo $$ > " + makeCgroup(t, "memory", "memory.max", "memory.limit_in_bytes", "314572800")
		}, func(dir string) []string { return block(dir, "--numjobs", "600") }, "memory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			o := runClydeAs(t, inShell(tc.setup(t)), tc.args(dir)...)
			if o.code != exitUsage || strings.Contains(o.stderr, "goroutine") {
				t.Fatalf("exit %d, want %d and no stack dump; stderr:\n%s", o.code, exitUsage, o.stderr)
			}
			assertOneLineError(t, o.stderr, tc.want)
			if left := listing(t, dir); len(left) != 1 {
				t.Errorf("the refused run left %v", left)
			}
		})
	}
}
