package runlock

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
)

func TestHolderIn(t *testing.T) {
	id := osio.Identity{Dev: unix.Mkdev(0xfe, 1), Ino: 1311}
	tests := []struct {
		name  string
		locks string
		pid   int
	}{
		{"flock of the target", "1: FLOCK  ADVISORY  WRITE 4242 fe:01:1311 0 EOF\n", 4242},
		{"leading zeros differ", "1: FLOCK  ADVISORY  WRITE 4242 0fe:1:1311 0 EOF\n", 4242},
		{"other inode", "1: FLOCK  ADVISORY  WRITE 4242 fe:01:1312 0 EOF\n", 0},
		{"other device", "1: FLOCK  ADVISORY  WRITE 4242 fe:02:1311 0 EOF\n", 0},
		{"posix lock is not clyde's", "1: POSIX  ADVISORY  WRITE 4242 fe:01:1311 0 EOF\n", 0},
		{"waiter line skipped", "1: FLOCK  ADVISORY  WRITE 4242 fe:01:1311 0 EOF\n1: -> FLOCK  ADVISORY  WRITE 99 fe:01:1311 0 EOF\n", 4242},
		{"second of two", "1: FLOCK  ADVISORY  WRITE 1 08:01:5 0 EOF\n2: FLOCK  ADVISORY  WRITE 77 fe:01:1311 0 EOF\n", 77},
		{"garbage", "nonsense\n\n1:\n", 0},
		{"own pid ignored", "1: FLOCK  ADVISORY  WRITE " + itoa(os.Getpid()) + " fe:01:1311 0 EOF\n", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := holderIn(bufio.NewScanner(strings.NewReader(tc.locks)), id)
			if h.PID != tc.pid {
				t.Fatalf("pid %d, want %d", h.PID, tc.pid)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
func FuzzHolderIn(f *testing.F) {
	f.Add("1: FLOCK  ADVISORY  WRITE 4242 fe:01:1311 0 EOF\n")
	f.Add("1: -> FLOCK ADVISORY WRITE x y:z 0 EOF\n")
	f.Fuzz(func(t *testing.T, s string) {
		_ = holderIn(bufio.NewScanner(strings.NewReader(s)), osio.Identity{Dev: 1, Ino: 2})
	})
}

// TestSystemHolderLive holds a flock from another process (util-linux
// flock(1)) and checks that /proc/locks names it.
func TestSystemHolderLive(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		clydetest.Skip(t, "needs flock(1) from util-linux")
	}
	dir := t.TempDir()
	cmd := exec.Command("flock", "--exclusive", dir, "sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	d, err := osio.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var held *HeldError
	for range 100 {
		var l *Lock
		l, err = Dir(d, dir, nil)
		if errors.As(err, &held) {
			break
		}
		l.Release()
		time.Sleep(20 * time.Millisecond) // flock(1) has not taken it yet
	}
	if held == nil {
		t.Fatalf("lock never seen held: %v", err)
	}
	if held.Holder.PID != cmd.Process.Pid || !strings.Contains(held.Holder.Command, "flock") {
		t.Fatalf("holder %+v, want pid %d running flock", held.Holder, cmd.Process.Pid)
	}
}
