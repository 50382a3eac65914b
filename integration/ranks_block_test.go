//go:build linux

package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clydebench/clyde/result"
)

// clyde block across ranks: every rank its own file, every group started
// at once, one result with every rank's I/Os summed.

func decodeBlock(t *testing.T, out string) *result.Block {
	t.Helper()
	var res result.Block
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("decode: %v\n%s", err, out)
	}
	return &res
}

// checkBlockJob checks a merged result: ranks rows per group, and every
// job's I/Os the sum of the ranks' rows.
func checkBlockJob(t *testing.T, res *result.Block, ranks, groups int, launcher string) {
	t.Helper()
	j := res.Job
	if j == nil {
		t.Fatalf("no job section: %+v", res.Notes)
	}
	if j.Ranks != ranks || j.Launcher != launcher || len(j.Phases) != groups || len(j.PerRank) != ranks*groups || j.Files != "rank" {
		t.Fatalf("job: %d ranks by %s, %d phases, %d rank rows, files %q", j.Ranks, j.Launcher, len(j.Phases), len(j.PerRank), j.Files)
	}
	if len(res.Jobs) != groups {
		t.Fatalf("%d jobs, want %d", len(res.Jobs), groups)
	}
	for g, p := range j.Phases {
		var items, bytes int64
		pids := map[int]bool{}
		for _, r := range j.PerRank {
			if r.Iteration == g {
				items += r.Items
				bytes += r.Bytes
				pids[r.PID] = true
				if r.Items == 0 || r.Host == "" {
					t.Errorf("group %d: rank %d did %d I/Os on %q", g, r.Rank, r.Items, r.Host)
				}
			}
		}
		jb := res.Jobs[g]
		ios := jb.Read.TotalIOs + jb.Write.TotalIOs
		if items != p.Items || ios != items || jb.Read.IOBytes+jb.Write.IOBytes != bytes || len(pids) != ranks {
			t.Errorf("group %d: ranks' rows %d I/Os %d bytes in %d pids, phase %d, job %d I/Os %d bytes", g, items, bytes, len(pids), p.Items, ios, jb.Read.IOBytes+jb.Write.IOBytes)
		}
		// The latency histograms merged: one value per I/O of every rank.
		if n := jb.Read.Clat.N + jb.Write.Clat.N; n != ios {
			t.Errorf("group %d: clat holds %d values for %d I/Os", g, n, ios)
		}
		if p.LastDoneNs != max(jb.Read.RuntimeNs, jb.Write.RuntimeNs) || p.FirstDoneNs > p.LastDoneNs {
			t.Errorf("group %d: last done %d ns, first %d, the job's runtime %d", g, p.LastDoneNs, p.FirstDoneNs, max(jb.Read.RuntimeNs, jb.Write.RuntimeNs))
		}
	}
}

func TestMpiexecBlock(t *testing.T) {
	mpiexec := needMpiexec(t)
	t.Run("flags", func(t *testing.T) {
		dir := t.TempDir()
		p := startProc(t, launcherEnv(), mpiexec, "-n", "4", clydeBin, "block", "--filename", filepath.Join(dir, "data"), "--size", "4m",
			"--rw", "randrw", "--bs", "4k", "--runtime", "1", "--time_based", "--output-format", "json", "--no-history")
		if code := p.wait(t, 2*time.Minute); code != 0 {
			t.Fatalf("exit %d: %s", code, p.stderr.String())
		}
		res := decodeBlock(t, p.stdout.String())
		checkBlockJob(t, res, 4, 1, "mpich-hydra-pmi1")
		// The history knows the job by the file named, not rank 0's copy.
		if want := filepath.Join(dir, "data"); res.Target.Path != want {
			t.Errorf("target %q, want %q", res.Target.Path, want)
		}
		emptyDir(t, dir)
	})
	t.Run("job file", func(t *testing.T) {
		// Two groups (stonewall): each starts on every rank at once and
		// gets its own rows.
		dir := t.TempDir()
		jobs := filepath.Join(t.TempDir(), "two.fio")
		if err := os.WriteFile(jobs, []byte("[global]\nfilename="+filepath.Join(dir, "f")+"\nsize=2m\nbs=4k\n\n[write]\nrw=write\n\n[read]\nstonewall\nrw=randread\nruntime=1\ntime_based\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p := startProc(t, launcherEnv(), mpiexec, "-n", "3", clydeBin, "block", jobs, "--output-format", "json", "--no-history")
		if code := p.wait(t, 2*time.Minute); code != 0 {
			t.Fatalf("exit %d: %s", code, p.stderr.String())
		}
		res := decodeBlock(t, p.stdout.String())
		checkBlockJob(t, res, 3, 2, "mpich-hydra-pmi1")
		// A sized write covers each rank's own file once: 3 x 2 MiB.
		if w := res.Jobs[0].Write.IOBytes; w != 3*2<<20 {
			t.Errorf("the write group wrote %d bytes, want %d", w, 3*2<<20)
		}
		emptyDir(t, dir)
	})
	t.Run("text", func(t *testing.T) {
		dir := t.TempDir()
		p := startProc(t, launcherEnv(), mpiexec, "-n", "2", clydeBin, "block", "--filename", filepath.Join(dir, "data"), "--size", "1m",
			"--rw", "read", "--bs", "64k", "--runtime", "1", "--no-history")
		if code := p.wait(t, 2*time.Minute); code != 0 {
			t.Fatalf("exit %d: %s", code, p.stderr.String())
		}
		out := p.stdout.String()
		if strings.Count(out, "All ranks: 2 on 1 host") != 1 || strings.Count(out, "    rank ") != 2 || strings.Count(out, "read: IOPS=") != 1 {
			t.Fatalf("rank 0 printed:\n%s", out)
		}
		emptyDir(t, dir)
	})
}

func TestMpiexecBlockFaults(t *testing.T) {
	mpiexec := needMpiexec(t)
	args := func(dir, bs string) []string {
		return []string{clydeBin, "block", "--filename", filepath.Join(dir, "data"), "--size", "8m", "--rw", "randwrite", "--bs", bs, "--runtime", "30", "--time_based", "--no-history"}
	}
	t.Run("options differ", func(t *testing.T) {
		dir := t.TempDir()
		mpmd := append(append(append([]string{"-n", "1"}, args(dir, "4k")...), ":", "-n", "1"), args(dir, "8k")...)
		p := startProc(t, launcherEnv(), mpiexec, mpmd...)
		if code := p.wait(t, time.Minute); code == 0 {
			t.Fatal("ranks with different --bs ran")
		}
		if !strings.Contains(p.stderr.String(), "refused at hello: its options differ") {
			t.Fatalf("stderr:\n%s", p.stderr.String())
		}
		emptyDir(t, dir)
	})
	t.Run("interrupted", func(t *testing.T) {
		dir := t.TempDir()
		p := startProc(t, launcherEnv(), mpiexec, append([]string{"-n", "3"}, args(dir, "4k")...)...)
		waitFiles(t, dir, "data.rank*", 3, p)
		_ = p.cmd.Process.Signal(syscall.SIGINT)
		if code := p.wait(t, 30*time.Second); code != 130 {
			t.Fatalf("exit %d, want 130: %s", code, p.stderr.String())
		}
		// A job that did not finish prints no result: rank 0's part is
		// not the job's (mpiexec's own lines may be there).
		if out := p.stdout.String(); strings.Contains(out, "IOPS=") || strings.Contains(out, "clyde") {
			t.Errorf("an interrupted job printed a result:\n%s", out)
		}
		emptyDir(t, dir)
	})
	t.Run("rank killed", func(t *testing.T) {
		// As an Indexed Job (no launcher kills the others): they hear of
		// it from rank 0, stop, remove their files and name the lost
		// rank; --cleanup removes the killed rank's.
		dir := t.TempDir()
		token := tokenFile(t, "0123456789abcdef-secret")
		port := strconv.Itoa(freePort(t))
		var ps []*proc
		for i := range 3 {
			ps = append(ps, startProc(t, launcherEnv("JOB_COMPLETION_INDEX="+strconv.Itoa(i)), clydeBin, append(args(dir, "4k")[1:],
				"--ranks", "3", "--coordinator", "127.0.0.1:"+port, "--token-file", token)...))
		}
		waitFiles(t, dir, "data.rank*", 3, ps[0])
		time.Sleep(300 * time.Millisecond) // into the run, past the common start
		if err := ps[2].cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{0, 1} {
			if code := ps[i].wait(t, 20*time.Second); code != 1 {
				t.Fatalf("rank %d: exit %d: %s", i, code, ps[i].stderr.String())
			}
			if line := strings.TrimSpace(ps[i].stderr.String()); !strings.Contains(line, "rank 2 (") {
				t.Fatalf("rank %d said:\n%s", i, line)
			}
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "data.rank*")); len(left) != 1 || !strings.HasSuffix(left[0], "data.rank2") {
			t.Fatalf("left %v, want only the killed rank's file", left)
		}
		if out := runClyde(t, "block", "--cleanup", "--filename", filepath.Join(dir, "data.rank2")); out.code != 0 {
			t.Fatalf("cleanup: exit %d: %s%s", out.code, out.stdout, out.stderr)
		}
		emptyDir(t, dir)
	})
}

// waitFiles waits until n names matching glob exist in dir.
func waitFiles(t *testing.T, dir, glob string, n int, p *proc) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m, _ := filepath.Glob(filepath.Join(dir, glob)); len(m) >= n {
			return
		}
		select {
		case <-p.done:
			t.Fatalf("the job ended before making its files: %s", p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("no %d files %s in %s after 30s", n, glob, dir)
}

func TestMpiexecCopy(t *testing.T) {
	mpiexec := needMpiexec(t)
	dir := t.TempDir()
	jsonOut := filepath.Join(t.TempDir(), "copy.json")
	p := startProc(t, launcherEnv(), mpiexec, "-n", "3", clydeBin, "copy", "-d", dir, "--set", "256k:4,4k:20", "--no-history", "--json", jsonOut)
	if code := p.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("exit %d: %s", code, p.stderr.String())
	}
	if out := p.stdout.String(); strings.Count(out, "All ranks: 3 on 1 host(s)") != 1 || strings.Count(out, "    rank ") != 6 {
		t.Fatalf("rank 0 printed:\n%s", out)
	}
	b, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	var res result.Copy
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	j := res.Job
	if j == nil || j.Ranks != 3 || j.Files != "private-dir" || len(j.Phases) != 2 || len(j.PerRank) != 6 || len(res.Results) != 2 {
		t.Fatalf("job %+v, %d results", j, len(res.Results))
	}
	for i, want := range []int64{12, 60} {
		f := res.Results[i]
		if f.Files != want || f.Bytes != want*[]int64{256 << 10, 4 << 10}[i] || !f.Verified || f.Latency.Count != want || j.Phases[i].Items != want {
			t.Errorf("%s: %d files %d bytes, verified %v, %d latencies, phase %d items; want %d files of every rank", f.Set, f.Files, f.Bytes, f.Verified, f.Latency.Count, j.Phases[i].Items, want)
		}
		if f.ElapsedNs != j.Phases[i].LastDoneNs {
			t.Errorf("%s: %d ns, the slowest rank's %d", f.Set, f.ElapsedNs, j.Phases[i].LastDoneNs)
		}
	}
	emptyDir(t, dir)
	t.Run("method all refused", func(t *testing.T) {
		p := startProc(t, launcherEnv(), mpiexec, "-n", "2", clydeBin, "copy", "-d", dir, "--set", "4k:2", "--method", "all", "--no-history")
		// A usage error, but under mpiexec every rank exits 1: Hydra ORs
		// the ranks' codes, and a 2 beside another rank's 1 reads as 3.
		if code := p.wait(t, time.Minute); code != 1 || !strings.Contains(p.stderr.String(), "give one method across 2 ranks") {
			t.Fatalf("exit %d: %s", code, p.stderr.String())
		}
		emptyDir(t, dir)
	})
}
