//go:build linux

package integration

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
)

// leftoverEnv makes the test binary a run of TestLeftoverMaker alone, in a
// suite root under the TMPDIR the parent gave it.
const leftoverEnv = "CLYDE_INTEGRATION_LEFTOVERS"

// makeLeftovers is TestMain for that child: a suite root of its own
// (swept and marked as the real run's is), then the maker test.
func makeLeftovers(m *testing.M) int {
	flag.Parse()
	timeout, _ := time.ParseDuration(flag.Lookup("test.timeout").Value.String())
	if _, err := clydetest.StartSuite("integration", timeout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// No Close: the child is killed, or its -timeout panics, with all of
	// it in place, as a real run that dies.
	return m.Run()
}

// TestLeftoverMaker, run by TestSweepAfterKill as a child, makes what a
// test dies holding: a tmpfs and an ext4 on a loop device mounted, a loop
// device with nothing on it, files, and a process (the suite's own copy of
// sleep) working inside the tmpfs, which keeps it busy. Then it waits to
// be killed.
func TestLeftoverMaker(t *testing.T) {
	if os.Getenv(leftoverEnv) == "" {
		clydetest.Skip(t, "helper process for TestSweepAfterKill")
	}
	tmp := makeFS(t, tmpfs, 8)
	ext := makeFS(t, ext4, 16)
	attachLoop(t, newImage(t, 4), false)
	if err := os.WriteFile(filepath.Join(ext.dir, "data"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	sleep := filepath.Join(t.TempDir(), "sleep")
	b, err := os.ReadFile("/bin/sleep")
	if err == nil {
		err = os.WriteFile(sleep, b, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sleep, "3600")
	cmd.Dir = tmp.dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("leftovers ready: pid %d\n", cmd.Process.Pid)
	select {} // until killed
}

// suiteLeftovers lists what is mounted, attached and running under base.
func suiteLeftovers(t *testing.T, base string) (mounts, loops, procs []string) {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 4 && strings.HasPrefix(f[4], base+"/") {
			mounts = append(mounts, f[4])
		}
	}
	files, _ := filepath.Glob("/sys/block/loop*/loop/backing_file")
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && strings.HasPrefix(string(b), base+"/") {
			loops = append(loops, f)
		}
	}
	ps, _ := filepath.Glob("/proc/[0-9]*/exe")
	for _, p := range ps {
		if exe, err := os.Readlink(p); err == nil && strings.HasPrefix(exe, base+"/") {
			procs = append(procs, p)
		}
	}
	return mounts, loops, procs
}

// TestSweepAfterKill runs TestLeftoverMaker in a child test binary and
// kills it, with SIGKILL and with its own -timeout: whatever the death,
// once the next run's sweep has run no mount, loop device, process or
// directory of the dead run remains. A run's -timeout is also met before
// it fires: the child's mounts and loop devices are released by then, and
// only the directory waits for the sweep.
func TestSweepAfterKill(t *testing.T) {
	t.Parallel()
	needRoot(t)
	needTool(t, "mkfs.ext4", "e2fsprogs")
	for _, death := range []string{"SIGKILL", "timeout"} {
		t.Run(death, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			// Whatever the sweep under test misses, this test's own
			// cleanup releases with the tools, so a broken sweep fails
			// the test without leaving the machine its mounts.
			t.Cleanup(func() { forceRelease(t, base) })
			timeout := "10m"
			if death == "timeout" {
				timeout = "20s"
			}
			cmd := exec.CommandContext(clydetest.Context(t), os.Args[0], "-test.run=^TestLeftoverMaker$", "-test.v", "-test.timeout="+timeout)
			cmd.Env = append(os.Environ(), leftoverEnv+"=1", "TMPDIR="+base)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr clydetest.SyncBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			out := bufio.NewReader(stdout)
			for {
				line, err := out.ReadString('\n')
				if err != nil {
					t.Fatalf("the child ended before its leftovers were ready: %v; stderr:\n%s", err, stderr.String())
				}
				if strings.HasPrefix(line, "leftovers ready") {
					break
				}
			}
			mounts, loops, procs := suiteLeftovers(t, base)
			if len(mounts) != 2 || len(loops) != 2 || len(procs) != 1 {
				t.Fatalf("the child made %d mounts %v, %d loop devices, %d processes; want 2, 2 and its sleep", len(mounts), mounts, len(loops), len(procs))
			}
			go func() { _, _ = io.Copy(io.Discard, out) }()
			if death == "SIGKILL" {
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			}
			err = cmd.Wait()
			clydetest.Expired(t, clydetest.Context(t), "the child")
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); death == "SIGKILL" && (!ok || ws.Signal() != syscall.SIGKILL) {
				t.Fatalf("the child ended with %v, not by the SIGKILL", err)
			}
			mounts, loops, procs = suiteLeftovers(t, base)
			if death == "timeout" {
				if !strings.Contains(stderr.String(), "panic: test timed out") {
					t.Fatalf("the child did not time out: %v; stderr:\n%s", err, stderr.String())
				}
				if len(mounts)+len(loops) != 0 {
					t.Errorf("before its timeout fired the child had not released %v and %v", mounts, loops)
				}
			} else if len(mounts) != 2 || len(loops) != 2 || len(procs) != 1 {
				t.Fatalf("the SIGKILL left %v, %v, %v; want all the child made, for the sweep", mounts, loops, procs)
			}
			// A run in progress beside the dead one (its marker held, here
			// by this process) is not the sweep's.
			live := filepath.Join(base, "clyde-suite-integration.live")
			if err := os.Mkdir(live, 0o700); err != nil {
				t.Fatal(err)
			}
			lock, err := os.Create(filepath.Join(live, ".clyde-suite"))
			if err == nil {
				err = unix.Flock(int(lock.Fd()), unix.LOCK_EX)
			}
			if err != nil {
				t.Fatal(err)
			}
			rep, err := clydetest.Sweep(base, "integration")
			if err != nil {
				t.Fatalf("sweep: %v (released %s)", err, rep)
			}
			if _, err := os.Stat(lock.Name()); err != nil {
				t.Errorf("the sweep took a live run's root: %v", err)
			}
			lock.Close()
			os.RemoveAll(live)
			t.Logf("swept: %s", rep)
			// A loop device with a lazily unmounted filesystem on it goes
			// when the kernel lets go of it.
			for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
				if mounts, loops, procs = suiteLeftovers(t, base); len(mounts)+len(loops)+len(procs) == 0 {
					break
				}
			}
			if len(mounts)+len(loops)+len(procs) != 0 {
				t.Errorf("after the sweep: mounts %v, loop devices %v, processes %v", mounts, loops, procs)
			}
			if ents, err := os.ReadDir(base); err != nil || len(ents) != 0 {
				t.Errorf("after the sweep %s holds %d entries (%v), want none", base, len(ents), err)
			}
			if len(rep.Roots) != 1 {
				t.Errorf("the sweep removed %d suite roots, want the dead child's", len(rep.Roots))
			}
		})
	}
}

// forceRelease kills, unmounts and detaches whatever suiteLeftovers finds
// under base, with kill, umount and losetup.
func forceRelease(t *testing.T, base string) {
	mounts, loops, procs := suiteLeftovers(t, base)
	for _, p := range procs {
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	for i := len(mounts) - 1; i >= 0; i-- {
		_ = exec.Command("umount", "--lazy", mounts[i]).Run()
	}
	for _, l := range loops {
		_ = exec.Command("losetup", "--detach", "/dev/"+filepath.Base(filepath.Dir(filepath.Dir(l)))).Run()
	}
}
