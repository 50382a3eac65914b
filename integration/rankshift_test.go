//go:build linux

package integration

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

// --rank-shift (mdtest's -N): each rank stats and deletes the files of the
// rank N places on, through its own view of one shared directory.

func checkShift(t *testing.T, res *result.FS, ranks, shift int) {
	t.Helper()
	if res.Job.RankShift != shift {
		t.Fatalf("job's rank shift %d, want %d", res.Job.RankShift, shift)
	}
	for _, row := range res.Job.PerRank {
		create := row.Test == result.SeqCreate.Name() || row.Test == result.RandCreate.Name()
		switch {
		case create && row.FilesOfRank != nil:
			t.Errorf("%s rank %d says it used rank %d's files", row.Test, row.Rank, *row.FilesOfRank)
		case !create && (row.FilesOfRank == nil || *row.FilesOfRank != (row.Rank+shift)%ranks):
			t.Errorf("%s rank %d: files of rank %v, want %d", row.Test, row.Rank, row.FilesOfRank, (row.Rank+shift)%ranks)
		}
	}
}

func TestMpiexecRankShift(t *testing.T) {
	mpiexec := needMpiexec(t)
	fsArgs := func(dir string, extra ...string) []string {
		return append([]string{clydeBin, "fs", "-d", dir, "-s", "0", "-n", "2:0:0:4", "--no-history"}, extra...)
	}
	t.Run("one directory", func(t *testing.T) {
		dir := t.TempDir()
		p := startProc(t, launcherEnv(), mpiexec, append([]string{"-n", "3"}, fsArgs(dir, "--rank-shift", "1", "--json", "-")...)...)
		if code := p.wait(t, 2*time.Minute); code != 0 {
			t.Fatalf("exit %d: %s", code, p.stderr.String())
		}
		res := decodeJob(t, p.stdout.String())
		checkJob(t, res, 3, 2048, "mpich-hydra-pmi1")
		checkShift(t, res, 3, 1)
		emptyDir(t, dir)
	})
	t.Run("directories that are not one", func(t *testing.T) {
		// Each rank's -d is its own directory: no rank can see its
		// peer's files, so the job stops before the first phase.
		a, b := t.TempDir(), t.TempDir()
		args := append(append(append([]string{"-n", "1"}, fsArgs(a, "--rank-shift", "1")...), ":", "-n", "1"), fsArgs(b, "--rank-shift", "1")...)
		p := startProc(t, launcherEnv(), mpiexec, args...)
		if code := p.wait(t, time.Minute); code == 0 {
			t.Fatal("a rank shift across unshared directories ran")
		}
		if !strings.Contains(p.stderr.String(), "is not visible here") {
			t.Fatalf("stderr:\n%s", p.stderr.String())
		}
		emptyDir(t, a)
		emptyDir(t, b)
	})
	t.Run("a shift of the job's size", func(t *testing.T) {
		dir := t.TempDir()
		p := startProc(t, launcherEnv(), mpiexec, append([]string{"-n", "2"}, fsArgs(dir, "--rank-shift", "2")...)...)
		if code := p.wait(t, time.Minute); code == 0 {
			t.Fatal("a shift that lands every rank on itself ran")
		}
		if !strings.Contains(p.stderr.String(), "lands every rank on its own files") {
			t.Fatalf("stderr:\n%s", p.stderr.String())
		}
		emptyDir(t, dir)
	})
}

// TestSshfsRankShift runs two ranks as two clients of one directory: two
// sshfs mounts (FUSE) of a directory served by an sshd on loopback, each
// rank on its own mount. sshfs's caches are not coherent between clients:
// with them, the random create finds a name the peer deleted through the
// other mount still cached as existing (EEXIST, which clyde explains), so
// the mounts keep sshfs's own cache off and the kernel's entries for no
// time; the page cache stays.
func TestSshfsRankShift(t *testing.T) {
	needRoot(t)
	mpiexec := needMpiexec(t)
	for _, tool := range []string{"sshfs", "ssh-keygen", "fusermount"} {
		if _, err := exec.LookPath(tool); err != nil {
			clydetest.Skipf(t, "%s is not installed (Debian packages sshfs, openssh-client, fuse3)", tool)
		}
	}
	port, key := sshd(t)
	served := t.TempDir()
	m1, m2 := sshfsMount(t, port, key, served), sshfsMount(t, port, key, served)
	fsArgs := func(dir string) []string {
		return []string{clydeBin, "fs", "-d", dir, "-s", "0", "-n", "1:0:0:4", "--no-history", "--rank-shift", "1", "--json", "-"}
	}
	args := append(append(append([]string{"-n", "1"}, fsArgs(m1)...), ":", "-n", "1"), fsArgs(m2)...)
	p := startProc(t, launcherEnv(), mpiexec, args...)
	if code := p.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("exit %d: %s", code, p.stderr.String())
	}
	res := decodeJob(t, p.stdout.String())
	checkJob(t, res, 2, 1024, "mpich-hydra-pmi1")
	checkShift(t, res, 2, 1)
	if fs := res.Provenance.Filesystem.Type; !strings.Contains(fs, "sshfs") {
		t.Errorf("rank 0 measured a %q filesystem, not sshfs", fs)
	}
	emptyDir(t, served)
}

// sshfsMount mounts dir through sshfs from the sshd on loopback port and
// unmounts it at the end.
func sshfsMount(t *testing.T, port int, key, dir string) string {
	t.Helper()
	mnt := t.TempDir()
	opts := fmt.Sprintf("IdentityFile=%s,StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,port=%d,BatchMode=yes,cache=no,entry_timeout=0,attr_timeout=0,negative_timeout=0", key, port)
	if out, err := exec.Command("sshfs", "-o", opts, "root@127.0.0.1:"+dir, mnt).CombinedOutput(); err != nil {
		t.Fatalf("sshfs: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("fusermount", "-u", mnt).CombinedOutput(); err != nil {
			t.Errorf("fusermount -u %s: %v\n%s", mnt, err, out)
		}
	})
	return mnt
}

// sshd starts an sshd on a loopback port that lets root in with a fresh key
// (and serves SFTP), for the rest of the test.
func sshd(t *testing.T) (int, string) {
	t.Helper()
	bin, err := exec.LookPath("sshd")
	if err != nil {
		if bin, err = exec.LookPath("/usr/sbin/sshd"); err != nil {
			clydetest.Skip(t, "sshd is not installed (Debian package openssh-server)")
		}
	}
	d := t.TempDir()
	for _, k := range []string{"host", "user"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(d, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
	}
	pub, err := os.ReadFile(filepath.Join(d, "user.pub"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	cfg := fmt.Sprintf("Port %d\nListenAddress 127.0.0.1\nHostKey %s\nPidFile %s\nAuthorizedKeysFile %s\n"+
		"PermitRootLogin prohibit-password\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"+
		"Subsystem sftp internal-sftp\n", port, filepath.Join(d, "host"), filepath.Join(d, "sshd.pid"), filepath.Join(d, "authorized_keys"))
	if err := os.WriteFile(filepath.Join(d, "sshd_config"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	// sshd's privilege separation directory, which the package's service
	// makes at boot.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, os.Environ(), bin, "-D", "-e", "-f", filepath.Join(d, "sshd_config"))
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-p.done:
			t.Fatalf("sshd exited: %s", p.stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd never listened: %s", p.stderr.String())
		}
	}
	return port, filepath.Join(d, "user")
}

// TestMpiexecStonewall: each create phase stops on both ranks at the wall,
// both make files up to the higher count, and the shifted stat and delete
// find every one of them on the peer (the point of the wear-out).
func TestMpiexecStonewall(t *testing.T) {
	mpiexec := needMpiexec(t)
	dir := t.TempDir()
	const perRank = 64 * 1024
	p := startProc(t, launcherEnv(), mpiexec, "-n", "2", clydeBin, "fs", "-d", dir, "-s", "0", "-n", "64:0:0:4", "--no-history",
		"--stonewall", "0.5", "--rank-shift", "1", "--json", "-")
	if code := p.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("exit %d: %s", code, p.stderr.String())
	}
	if !strings.Contains(p.stdout.String(), "Stonewall 0.5s: seq_create stopped") {
		t.Errorf("no stonewall line in:\n%s", p.stdout.String())
	}
	res := decodeJob(t, p.stdout.String())
	tests := res.Runs[0].Tests
	for _, create := range []result.FSTest{result.SeqCreate, result.RandCreate} {
		sw := tests[create].Stonewall
		switch {
		case sw == nil:
			t.Fatalf("%s has no stonewall", create.Name())
		case sw.Wall == "time" && (sw.MaxItems >= perRank || sw.Items > 2*sw.MaxItems || sw.MinItems > sw.MaxItems):
			t.Fatalf("%s stonewall %+v", create.Name(), sw)
		case sw.Wall == "first done" && sw.MaxItems != perRank:
			t.Fatalf("%s stonewall %+v", create.Name(), sw)
		}
		// every phase of this half saw the agreed count on each rank
		for _, row := range res.Job.PerRank {
			if sameHalf(row.Test, create) && row.Items != sw.MaxItems {
				t.Errorf("%s rank %d: %d files, want %d", row.Test, row.Rank, row.Items, sw.MaxItems)
			}
		}
	}
	checkShift(t, res, 2, 1)
	emptyDir(t, dir)
}

// sameHalf is whether test is in create's half of the file tests.
func sameHalf(test string, create result.FSTest) bool {
	if create == result.SeqCreate {
		return strings.HasPrefix(test, "seq_")
	}
	return strings.HasPrefix(test, "ran_")
}

// TestMpiexecSharedDir: every rank works in the one tree rank 0 made, whose
// marker names the job, and nothing is left.
func TestMpiexecSharedDir(t *testing.T) {
	mpiexec := needMpiexec(t)
	dir := t.TempDir()
	p := startProc(t, launcherEnv(), mpiexec, "-n", "3", clydeBin, "fs", "-d", dir, "-s", "0", "-n", "8:0:0:4", "--no-history",
		"--shared-dir", "--rank-shift", "1", "--json", "-")
	waitCreating(t, dir, 1, p)
	trees, _ := filepath.Glob(filepath.Join(dir, "clyde.*"))
	if len(trees) != 1 {
		t.Fatalf("%d private directories in a shared run: %v", len(trees), trees)
	}
	var marker struct {
		Job *struct {
			TokenHash string `json:"token_hash"`
			PIDs      []int  `json:"pids"`
		} `json:"job"`
	}
	if b, err := os.ReadFile(filepath.Join(trees[0], ".clyde-run")); err != nil {
		t.Fatal(err)
	} else if err := json.Unmarshal(b, &marker); err != nil || marker.Job == nil || len(marker.Job.PIDs) != 3 || marker.Job.TokenHash == "" {
		t.Fatalf("the shared tree's marker %s does not name the job (%v)", b, err)
	}
	if code := p.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("exit %d: %s", code, p.stderr.String())
	}
	res := decodeJob(t, p.stdout.String())
	checkJob(t, res, 3, 8*1024, "mpich-hydra-pmi1")
	checkShift(t, res, 3, 1)
	if !res.Job.SharedDir {
		t.Error("the job does not say it shared one tree")
	}
	emptyDir(t, dir)
}
