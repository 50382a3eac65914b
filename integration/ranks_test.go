//go:build linux

package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	procinfo "github.com/clydebench/clyde/internal/proc"
	"github.com/clydebench/clyde/result"
)

// The many-client tests run clyde fs as mpiexec (MPICH's Hydra) starts it,
// and as a Kubernetes Indexed Job would, with processes started by hand.

// launcherEnv is the test's environment without any launcher's variables,
// so a test run under srun or mpiexec starts its ranks afresh.
func launcherEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PMI_") || strings.HasPrefix(k, "SLURM_") || strings.HasPrefix(k, "OMPI_") ||
			strings.HasPrefix(k, "HYDI_") || strings.HasPrefix(k, "MPI_") || k == "JOB_COMPLETION_INDEX" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

func needMpiexec(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("mpiexec")
	if err != nil {
		clydetest.Skip(t, "mpiexec (Debian package mpich) is not installed")
	}
	out, _ := exec.Command(p, "--version").CombinedOutput()
	if !bytes.Contains(out, []byte("HYDRA")) {
		clydetest.Skip(t, "mpiexec is not MPICH's Hydra")
	}
	return p
}

type proc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
}

func startProc(t *testing.T, env []string, name string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(name, args...), done: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	clydetest.Watch(t, p.cmd)
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// wait returns the exit code, failing the test after limit.
func (p *proc) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		t.Fatalf("%s still running after %s; stderr:\n%s", p.cmd.Path, limit, p.stderr.String())
		return -1
	}
}

// ranksOf finds the running clyde processes working in dir, by the value of
// their env variable key (PMI_RANK, JOB_COMPLETION_INDEX).
func ranksOf(t *testing.T, dir, key string) map[int]int {
	t.Helper()
	ranks := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if !bytes.HasPrefix(cmdline, []byte(clydeBin+"\x00")) || !bytes.Contains(cmdline, []byte("\x00"+dir+"\x00")) {
			continue
		}
		env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		for _, kv := range bytes.Split(env, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, []byte(key+"=")); ok {
				r, _ := strconv.Atoi(string(v))
				ranks[r] = pid
			}
		}
	}
	return ranks
}

// waitGone returns once none of the processes in pids is running (gone,
// or a zombie waiting for its parent).
func waitGone(t *testing.T, pids map[int]int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for _, pid := range pids {
		for procinfo.Running(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("rank process %d still runs a minute after the job ended", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// waitCreating returns once n ranks of the job in dir have their private
// directories and are creating files.
func waitCreating(t *testing.T, dir string, n int, p *proc) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		dirs, _ := filepath.Glob(filepath.Join(dir, "clyde.*", "Bonnie.*"))
		if len(dirs) >= n {
			return
		}
		select {
		case <-p.done:
			t.Fatalf("the job ended before creating: %s", p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatal("the ranks never started creating files")
}

func emptyDir(t *testing.T, dir string) {
	t.Helper()
	if l := listing(t, dir); len(l) != 1 {
		t.Fatalf("%s is not empty:\n%s", dir, strings.Join(l, "\n"))
	}
}

func decodeJob(t *testing.T, out string) *result.FS {
	t.Helper()
	i := strings.Index(out, "{")
	if i < 0 {
		t.Fatalf("no JSON in:\n%s", out)
	}
	var res result.FS
	if err := json.Unmarshal([]byte(out[i:]), &res); err != nil {
		t.Fatalf("decode: %v\n%s", err, out)
	}
	res.Fixup()
	return &res
}

// checkJob checks a finished job's result: one run, every rank in every
// file phase, the totals the ranks' sum.
func checkJob(t *testing.T, res *result.FS, ranks, perRank int, launcher string) {
	t.Helper()
	j := res.Job
	if j == nil || j.Ranks != ranks || j.Launcher != launcher || res.Config.Concurrency != ranks {
		t.Fatalf("job %+v, concurrency %d", j, res.Config.Concurrency)
	}
	if len(j.Phases) != 6 || len(j.PerRank) != 6*ranks || len(j.PerHost) != 6*len(j.Hosts) {
		t.Fatalf("%d phases, %d per-rank rows, %d per-host rows", len(j.Phases), len(j.PerRank), len(j.PerHost))
	}
	seen := map[int]bool{}
	for _, row := range j.PerRank {
		seen[row.Rank] = true
		if row.Items != int64(perRank) || row.Host == "" || row.PID == 0 || row.ElapsedNs <= 0 {
			t.Fatalf("per-rank row %+v", row)
		}
	}
	if len(seen) != ranks {
		t.Fatalf("ranks seen: %v", seen)
	}
	for _, p := range j.Phases {
		if p.Items != int64(ranks*perRank) || p.LastDoneNs < p.FirstDoneNs || p.FirstDoneItems > p.Items || p.FirstDoneItems < int64(perRank) {
			t.Fatalf("phase %+v", p)
		}
	}
	create := res.Runs[0].Tests[result.SeqCreate]
	if create.Ops != int64(ranks*perRank) || create.Latency.Count != create.Ops {
		t.Fatalf("seq create: %d ops, %d latencies", create.Ops, create.Latency.Count)
	}
}

func TestMpiexecFS(t *testing.T) {
	mpiexec := needMpiexec(t)
	dir := t.TempDir()
	p := startProc(t, launcherEnv(), mpiexec, "-n", "4", clydeBin, "fs", "-d", dir, "-s", "0", "-n", "2:0:0:4", "--no-history", "--json", "-")
	if code := p.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("exit %d: %s", code, p.stderr.String())
	}
	out := p.stdout.String()
	// One result: one set of tables and one CSV line, concurrency 4.
	if n := strings.Count(out, "\n1.98,"); n != 1 {
		t.Fatalf("%d CSV lines:\n%s", n, out)
	}
	csv := out[strings.Index(out, "\n1.98,")+1:]
	if f := strings.Split(csv, ","); f[3] != "4" {
		t.Fatalf("CSV concurrency %q", f[3])
	}
	res := decodeJob(t, out)
	checkJob(t, res, 4, 2048, "mpich-hydra-pmi1")
	// Each create and delete says how long its closing flush took, the
	// longest rank's, inside the phase's time.
	for _, tt := range []result.FSTest{result.SeqCreate, result.SeqDelete, result.RandCreate, result.RandDelete} {
		if tr := res.Runs[0].Tests[tt]; tr.Flush == "" || tr.FlushNs <= 0 || tr.FlushNs > tr.ElapsedNs {
			t.Errorf("%s: flush %q took %d ns of %d", tt.Name(), tr.Flush, tr.FlushNs, tr.ElapsedNs)
		}
	}
	emptyDir(t, dir)
}

func TestMpiexecFaults(t *testing.T) {
	mpiexec := needMpiexec(t)
	args := func(dir, files string) []string {
		return []string{clydeBin, "fs", "-d", dir, "-s", "0", "-n", files, "--no-history"}
	}
	t.Run("rank killed", func(t *testing.T) {
		dir := t.TempDir()
		p := startProc(t, launcherEnv(), mpiexec, append([]string{"-n", "4"}, args(dir, "64:0:0:4")...)...)
		waitCreating(t, dir, 4, p)
		ranks := ranksOf(t, dir, "PMI_RANK")
		if err := syscall.Kill(ranks[2], syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if code := p.wait(t, 20*time.Second); code == 0 {
			t.Fatal("the job succeeded with a rank killed")
		}
		// Hydra kills the other ranks at once: --cleanup removes what
		// every killed rank left. mpiexec can return before its proxies
		// have reaped every rank, and --cleanup rightly leaves a live
		// rank's directory: wait for the ranks to be gone first.
		waitGone(t, ranks)
		out := runClyde(t, "fs", "--cleanup", "-d", dir)
		if out.code != 0 {
			t.Fatalf("cleanup: exit %d: %s", out.code, out.stderr)
		}
		emptyDir(t, dir)
	})
	t.Run("interrupted", func(t *testing.T) {
		// Hydra forwards the ^C to every rank, and on a loaded machine some
		// get it late: each rank tells the others it was interrupted and
		// leaves only once every rank has cleaned up, so no rank reads
		// another's exit as a lost rank (mpiexec would exit 131, 130|1).
		dir := t.TempDir()
		p := startProc(t, launcherEnv(), mpiexec, append([]string{"-n", "4"}, args(dir, "64:0:0:4")...)...)
		waitCreating(t, dir, 4, p)
		_ = p.cmd.Process.Signal(syscall.SIGINT)
		if code := p.wait(t, 30*time.Second); code != 130 {
			t.Fatalf("exit %d, want 130: %s", code, p.stderr.String())
		}
		if n := strings.Count(p.stderr.String(), "clyde: "); n != 4 {
			t.Fatalf("%d lines from the ranks, want 4:\n%s", n, p.stderr.String())
		}
		emptyDir(t, dir)
	})
	t.Run("options differ", func(t *testing.T) {
		dir := t.TempDir()
		mpmd := append(append(append([]string{"-n", "1"}, args(dir, "2:0:0:4")...), ":", "-n", "1"), args(dir, "3:0:0:4")...)
		p := startProc(t, launcherEnv(), mpiexec, mpmd...)
		if code := p.wait(t, time.Minute); code == 0 {
			t.Fatal("ranks with different -n ran")
		}
		if !strings.Contains(p.stderr.String(), "rank 1 (") || !strings.Contains(p.stderr.String(), "refused at hello: its options differ") {
			t.Fatalf("stderr:\n%s", p.stderr.String())
		}
		emptyDir(t, dir) // refused before anything was written
	})
}

// freePort is a loopback port nothing listens on (a rank 0 takes it next).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func tokenFile(t *testing.T, secret string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(p, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// indexedJob starts the first n of ranks processes as a Kubernetes Indexed
// Job's pods would run: JOB_COMPLETION_INDEX, --ranks and --coordinator.
func indexedJob(t *testing.T, dir string, n, ranks int, port int, token string, extra ...string) []*proc {
	t.Helper()
	var ps []*proc
	for i := range n {
		args := append([]string{"fs", "-d", dir, "-s", "0", "--no-history", "--ranks", strconv.Itoa(ranks),
			"--coordinator", "127.0.0.1:" + strconv.Itoa(port), "--token-file", token}, extra...)
		ps = append(ps, startProc(t, launcherEnv("JOB_COMPLETION_INDEX="+strconv.Itoa(i)), clydeBin, args...))
	}
	return ps
}

func TestIndexedJobByHand(t *testing.T) {
	dir := t.TempDir()
	token := tokenFile(t, "an indexed job's secret, from a Kubernetes Secret")
	port := freePort(t)
	ps := indexedJob(t, dir, 2, 3, port, token, "-n", "1:0:0:2", "--json", "-")
	// --per-rank is not part of the benchmark: a rank may add it alone.
	ps = append(ps, startProc(t, launcherEnv("JOB_COMPLETION_INDEX=2"), clydeBin, "fs", "-d", dir, "-s", "0", "--no-history",
		"--ranks", "3", "--coordinator", "127.0.0.1:"+strconv.Itoa(port), "--token-file", token, "-n", "1:0:0:2", "--json", "-", "--per-rank"))
	for i, p := range ps {
		if code := p.wait(t, 2*time.Minute); code != 0 {
			t.Fatalf("rank %d: exit %d: %s", i, code, p.stderr.String())
		}
	}
	if ps[1].stdout.Len() != 0 {
		t.Fatalf("rank 1 printed:\n%s", ps[1].stdout.String())
	}
	if out := ps[2].stdout.String(); strings.Count(out, "\n1.98,") != 1 || !strings.Contains(out, ",1,") || strings.Contains(out, "{") {
		t.Fatalf("rank 2 with --per-rank printed:\n%s", out)
	}
	checkJob(t, decodeJob(t, ps[0].stdout.String()), 3, 1024, "kubernetes-indexed-job")
	emptyDir(t, dir)
}

func TestIndexedJobFaults(t *testing.T) {
	t.Run("rank killed", func(t *testing.T) {
		// No launcher kills the others here: they hear of it from rank 0,
		// stop, remove their files and name the lost rank.
		dir := t.TempDir()
		token := tokenFile(t, "0123456789abcdef-secret")
		ps := indexedJob(t, dir, 3, 3, freePort(t), token, "-n", "64:0:0:4")
		waitCreating(t, dir, 3, ps[0])
		ranks := ranksOf(t, dir, "JOB_COMPLETION_INDEX")
		if err := syscall.Kill(ranks[2], syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{0, 1} {
			if code := ps[i].wait(t, 20*time.Second); code != 1 {
				t.Fatalf("rank %d: exit %d: %s", i, code, ps[i].stderr.String())
			}
			line := strings.TrimSpace(ps[i].stderr.String())
			if !strings.Contains(line, "job aborted: rank 2 (") || !strings.Contains(line, "lost: connection closed") || strings.Count(line, "\n") != 0 {
				t.Fatalf("rank %d said:\n%s", i, line)
			}
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "clyde.*")); len(left) != 1 {
			t.Fatalf("left %v, want only the killed rank's directory", left)
		}
		if out := runClyde(t, "fs", "--cleanup", "-d", dir); out.code != 0 || strings.Count(out.stdout, "removed ") != 1 {
			t.Fatalf("cleanup: exit %d, want one directory removed (the killed rank's): %s%s", out.code, out.stdout, out.stderr)
		}
		emptyDir(t, dir)
	})
	t.Run("stranger", func(t *testing.T) {
		dir := t.TempDir()
		port := freePort(t)
		good := tokenFile(t, "the right secret, 16+ chars")
		rank0 := startProc(t, launcherEnv("JOB_COMPLETION_INDEX=0"), clydeBin, "fs", "-d", dir, "-s", "0", "-n", "1:0:0:2", "--no-history",
			"--ranks", "2", "--coordinator", "127.0.0.1:"+strconv.Itoa(port), "--token-file", good)
		stranger := startProc(t, launcherEnv("JOB_COMPLETION_INDEX=1"), clydeBin, "fs", "-d", dir, "-s", "0", "-n", "1:0:0:2", "--no-history",
			"--ranks", "2", "--coordinator", "127.0.0.1:"+strconv.Itoa(port), "--token-file", tokenFile(t, "not the right secret at all"))
		if code := stranger.wait(t, time.Minute); code != 1 || !strings.Contains(stranger.stderr.String(), "cannot prove it holds the job's token") {
			t.Fatalf("stranger: exit %d: %s", code, stranger.stderr.String())
		}
		// The job goes on and finishes with the real rank 1.
		rank1 := startProc(t, launcherEnv("JOB_COMPLETION_INDEX=1"), clydeBin, "fs", "-d", dir, "-s", "0", "-n", "1:0:0:2", "--no-history",
			"--ranks", "2", "--coordinator", "127.0.0.1:"+strconv.Itoa(port), "--token-file", good)
		for i, p := range []*proc{rank0, rank1} {
			if code := p.wait(t, time.Minute); code != 0 {
				t.Fatalf("rank %d: exit %d: %s", i, code, p.stderr.String())
			}
		}
		emptyDir(t, dir)
	})
}

// needSlurm skips unless srun reaches a Slurm controller with an idle node
// (CI starts one with scripts/slurm-one-node.sh and exports SLURM_CONF).
func needSlurm(t *testing.T) string {
	t.Helper()
	srun, err := exec.LookPath("srun")
	if err != nil {
		clydetest.Skip(t, "srun (Debian package slurm-wlm) is not installed")
	}
	if os.Getenv("SLURM_CONF") == "" {
		if _, err := os.Stat("/etc/slurm/slurm.conf"); err != nil {
			clydetest.Skip(t, "no Slurm configured: no SLURM_CONF and no /etc/slurm/slurm.conf (scripts/slurm-one-node.sh DIR starts a one-node Slurm)")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sinfo", "-h", "-o", "%t")
	cmd.Env = launcherEnv("SLURM_CONF=" + os.Getenv("SLURM_CONF"))
	out, err := cmd.Output()
	if err != nil || !slurmNodeUp(out) {
		clydetest.Skipf(t, "no Slurm controller with a node that is up answers (start one with scripts/slurm-one-node.sh DIR and export SLURM_CONF): %v %s", err, out)
	}
	return srun
}

// slurmNodeUp reports whether sinfo's states (%t) name a node that takes
// jobs: idle, or busy with another test's (mix, alloc, comp: srun then
// waits its turn), not down, drained, unknown or not responding (a "*").
func slurmNodeUp(states []byte) bool {
	for _, s := range strings.Fields(string(states)) {
		if strings.HasSuffix(s, "*") {
			continue
		}
		switch strings.TrimRight(s, "~#!%$@^-") {
		case "idle", "mix", "alloc", "comp":
			return true
		}
	}
	return false
}

func TestSrunFS(t *testing.T) {
	srun := needSlurm(t)
	env := launcherEnv("SLURM_CONF=" + os.Getenv("SLURM_CONF"))
	cases := []struct {
		name     string
		mpi      string
		launcher string
		extra    []string
	}{
		{"pmi2", "pmi2", "slurm-pmi2", nil},
		{"plain", "none", "slurm", []string{"--token-file", tokenFile(t, "a secret on a shared filesystem")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"-n", "3", "--overcommit", "--mpi=" + tc.mpi, clydeBin, "fs", "-d", dir, "-s", "0", "-n", "1:0:0:2", "--no-history", "--json", "-"}, tc.extra...)
			p := startProc(t, env, srun, args...)
			if code := p.wait(t, 2*time.Minute); code != 0 {
				t.Fatalf("exit %d: %s", code, p.stderr.String())
			}
			checkJob(t, decodeJob(t, p.stdout.String()), 3, 1024, tc.launcher)
			emptyDir(t, dir)
			// The same launcher carries a block job.
			args = append([]string{"-n", "3", "--overcommit", "--mpi=" + tc.mpi, clydeBin, "block", "--filename", filepath.Join(dir, "data"), "--size", "1m",
				"--rw", "randread", "--bs", "4k", "--runtime", "1", "--output-format", "json", "--no-history"}, tc.extra...)
			p = startProc(t, env, srun, args...)
			if code := p.wait(t, 2*time.Minute); code != 0 {
				t.Fatalf("block: exit %d: %s", code, p.stderr.String())
			}
			checkBlockJob(t, decodeBlock(t, p.stdout.String()), 3, 1, tc.launcher)
			emptyDir(t, dir)
		})
	}
}

// hostsWrapper is a Hydra launcher standing in for ssh: it starts each
// host's proxy on this machine in a UTS namespace of its own, named after
// the host, so that the ranks of "h1" and "h2" see two host names.
const hostsWrapper = `#!/bin/sh
[ "$1" = -x ] && shift
host=$1; shift
eval "set -- $*"
exec unshare --uts sh -c 'hostname "$0" && exec "$@"' "$host" "$@"
`

func TestMpiexecHosts(t *testing.T) {
	mpiexec := needMpiexec(t)
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "needs root for UTS namespaces (unshare --uts)")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		clydetest.Skip(t, "unshare (util-linux) is not installed")
	}
	wrapper := filepath.Join(t.TempDir(), "launcher")
	if err := os.WriteFile(wrapper, []byte(hostsWrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := startProc(t, launcherEnv(), mpiexec, "-launcher", "ssh", "-launcher-exec", wrapper, "-hosts", "h1,h2", "-n", "4",
		clydeBin, "fs", "-d", dir, "-s", "0", "-n", "1:0:0:2", "--no-history", "--json", "-")
	if code := p.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("exit %d: %s", code, p.stderr.String())
	}
	res := decodeJob(t, p.stdout.String())
	checkJob(t, res, 4, 1024, "mpich-hydra-pmi1")
	if strings.Join(res.Job.Hosts, ",") != "h1,h2" || len(res.Job.PerHost) != 12 {
		t.Fatalf("hosts %v, %d per-host rows", res.Job.Hosts, len(res.Job.PerHost))
	}
	for _, h := range res.Job.PerHost {
		if h.Ranks != 2 || h.Items != 2048 {
			t.Fatalf("per-host row %+v", h)
		}
	}
	emptyDir(t, dir)
	// A block job's rows name the two hosts too.
	p = startProc(t, launcherEnv(), mpiexec, "-launcher", "ssh", "-launcher-exec", wrapper, "-hosts", "h1,h2", "-n", "4",
		clydeBin, "block", "--filename", filepath.Join(dir, "data"), "--size", "1m", "--rw", "randread", "--bs", "4k", "--runtime", "1",
		"--output-format", "json", "--no-history")
	if code := p.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("block: exit %d: %s", code, p.stderr.String())
	}
	blk := decodeBlock(t, p.stdout.String())
	checkBlockJob(t, blk, 4, 1, "mpich-hydra-pmi1")
	if strings.Join(blk.Job.Hosts, ",") != "h1,h2" || len(blk.Job.PerHost) != 2 || blk.Job.PerHost[0].Ranks != 2 || blk.Job.PerHost[1].Ranks != 2 {
		t.Fatalf("block hosts %v, per-host rows %+v", blk.Job.Hosts, blk.Job.PerHost)
	}
	emptyDir(t, dir)
}
