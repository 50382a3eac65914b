package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runUnderLimit runs the built clyde from sh after a ulimit, in dir, and
// returns its exit code and standard error.
func runUnderLimit(t *testing.T, dir, ulimit string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", ulimit + `; exec "$0" "$@"`, clydeBin}, args...)...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run: %v", err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// assertRefusedAtStart: exit 2, one line naming want, no stack dump, and
// nothing made in dir.
func assertRefusedAtStart(t *testing.T, dir string, code int, stderr, want string) {
	t.Helper()
	if code != exitUsage || strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 ||
		!strings.HasPrefix(stderr, "clyde: ") || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, want %d and one line naming %q; stderr:\n%s", code, exitUsage, want, stderr)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("the refused run left %v", es)
	}
}

// limitCommands are every command of clyde, each given a target in dir.
func limitCommands(dir string) map[string][]string {
	return map[string][]string{
		"block":     {"block", "--filename", filepath.Join(dir, "F"), "--size", "1m", "--rw", "write", "--runtime", "1s", "--no-history"},
		"fs":        {"fs", "-d", dir, "-s", "0", "-n", "1", "--no-history"},
		"copy":      {"copy", "-d", dir, "--no-history"},
		"iometer":   {"iometer", filepath.Join(dir, "none.icf"), "--no-history"},
		"orion":     {"orion", "-testname", filepath.Join(dir, "t"), "--no-history"},
		"report":    {"report", filepath.Join(dir, "none.json")},
		"history":   {"history", "--db", filepath.Join(dir, "h.db")},
		"--version": {"--version"},
		"--help":    {"--help"},
	}
}

// TestOpenFilesLimitAtStart is case 10's `ulimit -n 6` (netpoll fatal
// error): every command, with every limit that leaves the runtime too few
// descriptors, fails in one line before any package opens a file
// (internal/limits/startup), and makes nothing.
func TestOpenFilesLimitAtStart(t *testing.T) {
	for _, n := range []string{"6", "8", "10"} {
		for name, args := range limitCommands("DIR") {
			t.Run("ulimit -n "+n+"/"+name, func(t *testing.T) {
				dir := t.TempDir()
				for i, a := range args {
					args[i] = strings.ReplaceAll(a, "DIR", dir)
				}
				code, stderr := runUnderLimit(t, dir, "ulimit -n "+n, args...)
				assertRefusedAtStart(t, dir, code, stderr, "ulimit -n")
			})
		}
	}
}

// TestLimitsAfterStart: a limit that leaves the runtime room but not the
// run is refused by the run's own check (internal/limits), in one line,
// before the test file is made; and one with room runs.
func TestLimitsAfterStart(t *testing.T) {
	block := func(dir string, extra ...string) []string {
		return append(limitCommands(dir)["block"], extra...)
	}
	t.Run("ulimit -n 16", func(t *testing.T) {
		dir := t.TempDir()
		code, stderr := runUnderLimit(t, dir, "ulimit -n 16", block(dir, "--numjobs", "8")...)
		assertRefusedAtStart(t, dir, code, stderr, "ulimit -n")
		if code, stderr := runUnderLimit(t, dir, "ulimit -n 16", "--version"); code != 0 {
			t.Fatalf("--version under ulimit -n 16: exit %d: %s", code, stderr)
		}
	})
	// Under ulimit -v the runtime reserves at start what it can of the
	// address space (its page summaries shrink to fit): what is left is
	// too little here for clyde to get to its checks, and it stops in its
	// first package initialiser.
	t.Run("ulimit -v 1000000", func(t *testing.T) {
		dir := t.TempDir()
		code, stderr := runUnderLimit(t, dir, "ulimit -v 1000000", block(dir)...)
		assertRefusedAtStart(t, dir, code, stderr, "ulimit -v")
	})
	// Room to start, not for 200 workers' stacks and malloc arenas.
	t.Run("ulimit -v 2200000 with 200 workers", func(t *testing.T) {
		dir := t.TempDir()
		code, stderr := runUnderLimit(t, dir, "ulimit -v 2200000", block(dir, "--numjobs", "200")...)
		assertRefusedAtStart(t, dir, code, stderr, "RLIMIT_AS")
	})
	// Below what the runtime itself reserves it dies before any package's
	// initialiser ("failed to reserve page summary memory"): nothing of
	// clyde's has run, so nothing is left either.
	t.Run("ulimit -v 300000", func(t *testing.T) {
		dir := t.TempDir()
		code, _ := runUnderLimit(t, dir, "ulimit -v 300000", block(dir)...)
		if code == 0 {
			t.Fatal("ran under ulimit -v 300000")
		}
		if es, _ := os.ReadDir(dir); len(es) != 0 {
			t.Errorf("left %v", es)
		}
	})
}

// TestJobGroupLimitsSummed: a job file's jobs up to a stonewall run at
// once, numjobs' clones too, so the limits are checked against their sum.
// Each clone alone fits the address space left under this ulimit -v; the
// 200 of the group do not, and are refused before the file is made.
func TestJobGroupLimitsSummed(t *testing.T) {
	dir, jobs := t.TempDir(), t.TempDir()
	job := filepath.Join(jobs, "group.fio")
	text := "[global]\nfilename=" + filepath.Join(dir, "F") + "\nsize=1m\nrw=write\nruntime=1s\ntime_based\n[a]\nnumjobs=100\n[b]\nnumjobs=100\n"
	if err := os.WriteFile(job, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr := runUnderLimit(t, dir, "ulimit -v 2200000", "block", job, "--no-history")
	assertRefusedAtStart(t, dir, code, stderr, "job a x100, job b x100 run at the same time")
}
