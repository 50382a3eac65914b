//go:build linux

package integration

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/coord"
)

// The many-client coordinator against other users on the machine (issue
// 31): an impostor on rank 0's port, a flood of connections, two jobs that
// share one token file, a token file others can read.

// impostorScript listens on 127.0.0.1:PORT as a program without the token
// would and prints every line it hears. To a rank that speaks first (an
// open) it answers with a forged proof for the job the rank named; to one
// that waits, it sends the challenge rank 0 used to send, and it welcomes
// any hello, as the red team's impostor did.
const impostorScript = `
import json, select, socket, sys, threading
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(64)
print("listening", flush=True)
out = threading.Lock()  # one line at a time: print writes its newline apart
def serve(c):
    f = c.makefile("rwb")
    line = f.readline() if select.select([c], [], [], 0.5)[0] else b""
    if not line:
        f.write(b'{"t":"challenge","nonce":"00112233445566778899aabbccddeeff"}\n'); f.flush()
        line = f.readline()
    while line:
        with out:
            print("heard " + line.decode().strip(), flush=True)
        m = json.loads(line)
        if m.get("t") == "open":
            f.write((json.dumps({"t": "proof", "job": m.get("job", ""), "nonce": "00112233445566778899aabbccddeeff", "mac": "00" * 32}) + "\n").encode()); f.flush()
        elif m.get("t") == "hello":
            f.write(b'{"t":"welcome"}\n'); f.flush()
        line = f.readline()
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
`

// TestImpostorOnCoordinatorPort is the red team's attack: another user
// (nobody) binds rank 0's port before the job starts. The ranks check rank
// 0's proof before they say anything, so the impostor hears an open (the
// job's name and a nonce) and no hello: no rank, host, pid or options, and
// nothing after. Every rank fails with one line; rank 0 cannot listen.
func TestImpostorOnCoordinatorPort(t *testing.T) {
	needRoot(t)
	needTool(t, "setpriv", "util-linux")
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		clydetest.Skip(t, "no /usr/bin/python3 for the impostor")
	}
	uid, gid := unprivilegedUser(t)
	port := freePort(t)
	im := exec.Command("setpriv", "--reuid="+uid, "--regid="+gid, "--clear-groups", "/usr/bin/python3", "-c", impostorScript, strconv.Itoa(port))
	im.Dir = "/"
	out, err := im.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := im.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = im.Process.Kill(); _ = im.Wait() }()
	var mu sync.Mutex
	var heard []string
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "listening" {
				close(listening)
				continue
			}
			mu.Lock()
			heard = append(heard, sc.Text())
			mu.Unlock()
		}
	}()
	select {
	case <-listening:
	case <-time.After(time.Minute):
		t.Fatal("the impostor never listened")
	}
	dir := t.TempDir()
	token := tokenFile(t, "the job's secret, readable by root alone")
	ps := indexedJob(t, dir, 3, 3, port, token, "-n", "1:0:0:2", "--rank-timeout", "30s")
	for i, p := range ps {
		code := p.wait(t, 2*time.Minute)
		line := strings.TrimSpace(p.stderr.String())
		if code != 1 || strings.Count(line, "\n") != 0 {
			t.Fatalf("rank %d: exit %d, want 1 with one line:\n%s", i, code, line)
		}
		want := "cannot prove it holds the job's token"
		if i == 0 {
			want = "in use"
		}
		if !strings.Contains(line, want) {
			t.Fatalf("rank %d said %q, want %q", i, line, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(heard) == 0 {
		t.Fatal("the impostor heard nothing: the ranks never reached it")
	}
	for _, l := range heard {
		if !strings.HasPrefix(l, `heard {"t":"open"`) {
			t.Fatalf("the impostor heard more than an open:\n%s", strings.Join(heard, "\n"))
		}
	}
	emptyDir(t, dir)
}

// TestCoordinatorFlood: 4,000 connections to rank 0's port from another
// process, half idle and half each sending 60 KB of a hello that never
// ends, leave rank 0 holding at most coord.MaxPending of them and within
// 48 MiB of its own peak memory before the flood (measured: 19 MB before,
// 27 MB after; the unbounded coordinator held all 4,000 descriptors and
// 286 MB). The job then runs.
func TestCoordinatorFlood(t *testing.T) {
	const flood, floodBound = 4000, 48 << 20
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < flood+256 {
		clydetest.Skipf(t, "needs %d descriptors for the flood; RLIMIT_NOFILE is %d (%v)", flood+256, lim.Cur, err)
	}
	dir := t.TempDir()
	token := tokenFile(t, "0123456789abcdef-secret")
	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	ps := indexedJob(t, dir, 1, 2, port, token, "-n", "1:0:0:2", "--rank-timeout", "5m")
	rank0 := ps[0].cmd.Process.Pid
	waitListening(t, addr, ps[0])
	// It listens where the ranks dial, not on every address.
	if ls := listenersOn(t, port); len(ls) == 0 || strings.Contains(strings.Join(ls, " "), "every address") {
		t.Fatalf("rank 0 listens on %v, want 127.0.0.1 alone", ls)
	}
	before := vmHWM(t, rank0)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	var wg sync.WaitGroup
	junk := []byte(strings.Repeat("x", 60000))
	for i := range flood {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
		if i%2 == 1 {
			wg.Go(func() {
				_ = c.SetWriteDeadline(time.Now().Add(30 * time.Second))
				_, _ = c.Write(junk)
			})
		}
	}
	wg.Wait()
	// Rank 0 has accepted them all: every connection is held or closed.
	deadline := time.Now().Add(time.Minute)
	var sockets int
	for {
		sockets = socketsOf(t, rank0)
		if sockets <= coord.MaxPending+8 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rank 0 holds %d sockets after %d connections, more than %d in their hello", sockets, flood, coord.MaxPending)
		}
		time.Sleep(50 * time.Millisecond)
	}
	after := vmHWM(t, rank0)
	t.Logf("rank 0: peak RSS %d KiB before the flood, %d KiB after; %d sockets", before>>10, after>>10, sockets)
	if after-before > floodBound {
		t.Fatalf("rank 0's peak RSS grew by %d KiB under %d connections, more than %d KiB", (after-before)>>10, flood, floodBound>>10)
	}
	for _, c := range conns {
		c.Close()
	}
	conns = nil
	ps = append(ps, startProc(t, launcherEnv("JOB_COMPLETION_INDEX=1"), clydeBin, "fs", "-d", dir, "-s", "0", "--no-history", "--ranks", "2",
		"--coordinator", addr, "--token-file", token, "-n", "1:0:0:2", "--rank-timeout", "5m"))
	for i, p := range ps {
		if code := p.wait(t, 2*time.Minute); code != 0 {
			t.Fatalf("rank %d: exit %d: %s", i, code, p.stderr.String())
		}
	}
	emptyDir(t, dir)
}

// waitListening returns once something accepts on addr (the probe is one
// connection rank 0 turns away).
func waitListening(t *testing.T, addr string, p *proc) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		select {
		case <-p.done:
			t.Fatalf("rank 0 ended: %s", p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("nothing listens on %s", addr)
}

// listenersOn lists the local addresses of the TCP sockets listening on
// port, from /proc/net/tcp and tcp6; a wildcard one reads "every address".
func listenersOn(t *testing.T, port int) []string {
	t.Helper()
	var out []string
	suffix := fmt.Sprintf(":%04X", port)
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n")[1:] {
			fs := strings.Fields(l)
			if len(fs) < 4 || fs[3] != "0A" || !strings.HasSuffix(fs[1], suffix) {
				continue
			}
			ip := strings.TrimSuffix(fs[1], suffix)
			if strings.Trim(ip, "0") == "" {
				ip = "every address"
			}
			out = append(out, ip)
		}
	}
	return out
}

// vmHWM is pid's peak resident set, in bytes.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// socketsOf counts pid's open sockets.
func socketsOf(t *testing.T, pid int) int {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && strings.HasPrefix(l, "socket:") {
			n++
		}
	}
	return n
}

// TestSrunJobsShareToken is the docs' own example twice over: two
// plain-srun jobs with one ~/.clyde-token, whose rank 0s are on the same
// node. The second takes the next port, every hello names its job
// (SLURM_JOB_ID.SLURM_STEP_ID), the second job's ranks pass over the first
// one's rank 0, and both finish with their own ranks' results.
func TestSrunJobsShareToken(t *testing.T) {
	srun := needSlurm(t)
	env := launcherEnv("SLURM_CONF=" + os.Getenv("SLURM_CONF"))
	token := tokenFile(t, "one token file for every job of this user")
	dirA, dirB := t.TempDir(), t.TempDir()
	a := startProc(t, env, srun, "-n", "2", "--overcommit", "--mpi=none", clydeBin, "block", "--filename", filepath.Join(dirA, "data"), "--size", "1m",
		"--rw", "randread", "--bs", "4k", "--runtime", "15", "--time_based", "--output-format", "json", "--no-history", "--token-file", token)
	waitFiles(t, dirA, "data.rank*", 2, a)
	b := startProc(t, env, srun, "-n", "2", "--overcommit", "--mpi=none", clydeBin, "fs", "-d", dirB, "-s", "0", "-n", "1:0:0:2", "--no-history", "--json", "-", "--token-file", token)
	if code := b.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("job B: exit %d: %s", code, b.stderr.String())
	}
	select {
	case <-a.done:
		t.Fatal("job A ended before job B did: the two jobs never ran side by side")
	default:
	}
	checkJob(t, decodeJob(t, b.stdout.String()), 2, 1024, "slurm")
	if code := a.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("job A: exit %d: %s", code, a.stderr.String())
	}
	checkBlockJob(t, decodeBlock(t, a.stdout.String()), 2, 1, "slurm")
	emptyDir(t, dirA)
	emptyDir(t, dirB)
}

// TestTokenFileOthersCanRead: rank 0 prints one warning line naming the
// ranks whose token file other users can read (here rank 1's copy, mode
// 0644), and none for a file only its owner reads (rank 0's, 0600).
func TestTokenFileOthersCanRead(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	private := tokenFile(t, "0123456789abcdef-secret")
	exposed := tokenFile(t, "0123456789abcdef-secret")
	if err := os.Chmod(exposed, 0o644); err != nil {
		t.Fatal(err)
	}
	ps := indexedJob(t, dir, 1, 2, port, private, "-n", "1:0:0:2")
	ps = append(ps, startProc(t, launcherEnv("JOB_COMPLETION_INDEX=1"), clydeBin, "fs", "-d", dir, "-s", "0", "--no-history", "--ranks", "2",
		"--coordinator", "127.0.0.1:"+strconv.Itoa(port), "--token-file", exposed, "-n", "1:0:0:2"))
	for i, p := range ps {
		if code := p.wait(t, 2*time.Minute); code != 0 {
			t.Fatalf("rank %d: exit %d: %s", i, code, p.stderr.String())
		}
	}
	said := ps[0].stderr.String()
	if strings.Count(said, "warning: ") != 1 || !strings.Contains(said, "warning: the --token-file of rank 1 (") || strings.Contains(said, "rank 0 (") {
		t.Fatalf("rank 0 said:\n%s", said)
	}
	if strings.Contains(ps[1].stderr.String(), "warning") {
		t.Fatalf("rank 1 warned too:\n%s", ps[1].stderr.String())
	}
	emptyDir(t, dir)
}
