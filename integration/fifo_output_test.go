//go:build linux

package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// stalledFIFO makes a FIFO whose reader holds it open and never reads (a
// log shipper that hung), its pipe at one page so a few KiB fill it.
func stalledFIFO(t *testing.T) (path string, queued func() int) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "out")
	if err := unix.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, 4096); err != nil {
		t.Fatal(err)
	}
	return path, func() int { n, _ := unix.IoctlGetInt(fd, unix.TIOCINQ); return n } // TIOCINQ is FIONREAD
}

// TestStalledFIFOOutputStops is item 10 of issue 31: an output FIFO whose
// reader never reads kept `report -o` and `block --output` blocked in
// write(2), and the first SIGINT and SIGTERM changed nothing (only a
// person's second ^C ended it): GNU timeout under cron waited forever. The
// stop now ends the write: exit 130, one line, the run's files removed.
func TestStalledFIFOOutputStops(t *testing.T) {
	t.Run("report -o, SIGTERM while it writes", func(t *testing.T) {
		fifo, queued := stalledFIFO(t)
		r := startClyde(t, "report", "../testdata/compare/bonnie-2.00a-ext4.txt", "--format", "json", "-o", fifo)
		for queued() < 4096 { // the pipe is full: clyde is blocked in write(2)
			select {
			case <-r.done:
				t.Fatalf("report ended (exit %d) with the pipe not full; stderr:\n%s", r.cmd.ProcessState.ExitCode(), r.stderr.String())
			case <-time.After(10 * time.Millisecond):
			}
		}
		r.signal(t, syscall.SIGTERM)
		o := r.wait(t)
		if o.code != exitInterrupted || !strings.Contains(o.stderr, "took nothing") {
			t.Errorf("exit %d, want %d and the write named; stderr:\n%s", o.code, exitInterrupted, o.stderr)
		}
	})
	t.Run("block --output, SIGINT during the run", func(t *testing.T) {
		fifo, _ := stalledFIFO(t)
		dir := t.TempDir()
		r := startClyde(t, "block", "--filename", filepath.Join(dir, "F"), "--size", "16MiB", "--rw", "randread", "--runtime", "10s",
			"--time_based", "--no-history", "--output-format", "json", "--output", fifo)
		for readBytes(t, r) < 1<<20 { // measuring: it has read a MiB of F
			select {
			case <-r.done:
				t.Fatalf("block ended (exit %d) before it measured; stderr:\n%s", r.cmd.ProcessState.ExitCode(), r.stderr.String())
			case <-time.After(10 * time.Millisecond):
			}
		}
		r.signal(t, syscall.SIGINT)
		o := r.wait(t)
		if o.code != exitInterrupted || strings.Contains(o.stderr, "aborting") || !strings.Contains(o.stderr, "took nothing") {
			t.Errorf("exit %d, want %d, one stop and the write named; stderr:\n%s", o.code, exitInterrupted, o.stderr)
		}
		if left := listing(t, dir); len(left) != 1 {
			t.Errorf("the run left files behind: %v", left)
		}
	})
}

// readBytes is what r's process has read so far (/proc/PID/io's rchar).
func readBytes(t *testing.T, r *running) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", r.cmd.Process.Pid))
	if err != nil {
		return 0 // ended: the caller sees r.done
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}
