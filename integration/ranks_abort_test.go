//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// How a many-client job that did not finish ends (issue 31): no result
// line on any rank, one exit code on every rank, and the launcher's barrier
// bounded by --rank-timeout.

// TestMpiexecAbortedJobPrintsNoResult: rank 1's -d does not exist, so the
// job aborts after the hello. Rank 0 prints no bonnie++ CSV row (its own
// part, concurrency 1, which `| tail -1 >> results.csv` would collect),
// neither with -q nor as --json, keeps the previous --json file, and every
// rank exits 1: the failing rank's own error was a usage error (2), which
// Hydra would OR with the others' 1 into 3, "regression found".
func TestMpiexecAbortedJobPrintsNoResult(t *testing.T) {
	mpiexec := needMpiexec(t)
	prev := filepath.Join(t.TempDir(), "result.json")
	if err := os.WriteFile(prev, []byte("the previous run's result\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"tables", nil},
		{"quiet", []string{"-q"}},
		{"json", []string{"--json", "-"}},
		{"json file", []string{"--json", prev}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			rank := func(d string) []string {
				return append([]string{clydeBin, "fs", "-d", d, "-s", "0", "-n", "1:0:0:2", "--no-history"}, tc.args...)
			}
			mpmd := append(append(append([]string{"-n", "1"}, rank(dir)...), ":", "-n", "1"), rank(filepath.Join(dir, "missing"))...)
			p := startProc(t, launcherEnv(), mpiexec, mpmd...)
			if code := p.wait(t, 2*time.Minute); code != 1 {
				t.Fatalf("exit %d, want 1: %s", code, p.stderr.String())
			}
			if out := p.stdout.String(); out != "" {
				t.Fatalf("an aborted job printed a result:\n%s", out)
			}
			if n := strings.Count(p.stderr.String(), "clyde: "); n != 2 || !strings.Contains(p.stderr.String(), "job aborted: rank 1 (") {
				t.Fatalf("%d lines, want one per rank:\n%s", n, p.stderr.String())
			}
			emptyDir(t, dir)
		})
	}
	if b, _ := os.ReadFile(prev); string(b) != "the previous run's result\n" {
		t.Fatalf("the aborted job replaced the --json file with:\n%s", b)
	}
	t.Run("block", func(t *testing.T) {
		dir := t.TempDir()
		rank := func(d string) []string {
			return []string{clydeBin, "block", "--filename", filepath.Join(d, "data"), "--size", "1m", "--rw", "randread", "--bs", "4k", "--runtime", "1",
				"--output-format", "json", "--no-history"}
		}
		mpmd := append(append(append([]string{"-n", "1"}, rank(dir)...), ":", "-n", "1"), rank(filepath.Join(dir, "missing"))...)
		p := startProc(t, launcherEnv(), mpiexec, mpmd...)
		if code := p.wait(t, 2*time.Minute); code != 1 {
			t.Fatalf("exit %d, want 1: %s", code, p.stderr.String())
		}
		if out := p.stdout.String(); out != "" {
			t.Fatalf("an aborted block job printed a result:\n%s", out)
		}
		emptyDir(t, dir)
	})
}

// lateRank is a rank that never starts clyde: a node that is slow to boot,
// a hung prologue.
const lateRank = "sleep 600"

// TestMpiexecLateRank: a rank that never reaches the launcher's barrier
// holds the others at it for --rank-timeout, not forever. The first rank to
// give up leaves the PMI session unfinished, and Hydra then kills the rest
// (the late one too) and ends the job.
func TestMpiexecLateRank(t *testing.T) {
	mpiexec := needMpiexec(t)
	dir := t.TempDir()
	p := startProc(t, launcherEnv(), mpiexec, "-n", "2", clydeBin, "fs", "-d", dir, "-s", "0", "-n", "1:0:0:2", "--no-history", "--rank-timeout", "2s",
		":", "-n", "1", "sh", "-c", lateRank)
	if code := p.wait(t, 2*time.Minute); code == 0 {
		t.Fatal("a job with a rank that never started succeeded")
	}
	if !strings.Contains(p.stderr.String(), "not every rank reached the launcher's barrier (PMI fence) within 2s (--rank-timeout)") {
		t.Fatalf("stderr:\n%s\nstdout:\n%s", p.stderr.String(), p.stdout.String())
	}
	if strings.Contains(p.stdout.String(), "1.98,") {
		t.Fatalf("a result:\n%s", p.stdout.String())
	}
	emptyDir(t, dir)
}

// TestSrunLateRank: the same under srun --mpi=pmi2. Every clyde rank gives
// up with its line; srun -K (--kill-on-bad-exit) then ends the late one.
func TestSrunLateRank(t *testing.T) {
	srun := needSlurm(t)
	dir := t.TempDir()
	conf := filepath.Join(t.TempDir(), "multi.conf")
	prog := "0-1 " + clydeBin + " fs -d " + dir + " -s 0 -n 1:0:0:2 --no-history --rank-timeout 2s\n2 sh -c '" + lateRank + "'\n"
	if err := os.WriteFile(conf, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, launcherEnv("SLURM_CONF="+os.Getenv("SLURM_CONF")), srun, "-K", "-n", "3", "--overcommit", "--mpi=pmi2", "--multi-prog", conf)
	if code := p.wait(t, 2*time.Minute); code == 0 {
		t.Fatal("a job with a rank that never started succeeded")
	}
	if n := strings.Count(p.stderr.String(), "not every rank reached the launcher's barrier (PMI fence) within 2s"); n != 2 {
		t.Fatalf("%d ranks gave up at the barrier, want both clyde ranks:\n%s", n, p.stderr.String())
	}
	emptyDir(t, dir)
}

// TestSrunInterrupt: srun shows its tasks' status at one ^C and forwards
// nothing; with -X (--disable-status) it forwards the SIGINT, and every
// rank stops once: it removes its files and leaves when every rank has, so
// all exit 130 and srun does too.
func TestSrunInterrupt(t *testing.T) {
	srun := needSlurm(t)
	dir := t.TempDir()
	p := startProc(t, launcherEnv("SLURM_CONF="+os.Getenv("SLURM_CONF")), srun, "-X", "-n", "3", "--overcommit", "--mpi=pmi2",
		clydeBin, "fs", "-d", dir, "-s", "0", "-n", "64:0:0:4", "--no-history")
	waitCreating(t, dir, 3, p)
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t, time.Minute); code != 130 {
		t.Fatalf("exit %d, want 130: %s", code, p.stderr.String())
	}
	if n := strings.Count(p.stderr.String(), "clyde: "); n != 3 || strings.Contains(p.stdout.String(), "1.98,") {
		t.Fatalf("%d lines from the ranks, want 3, and no result:\n%s%s", n, p.stdout.String(), p.stderr.String())
	}
	emptyDir(t, dir)
}
