//go:build linux

package outfile

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/result"
)

// errStopped stands for the command's stop (its cause is the exit code).
var errStopped = errors.New("interrupted")

// stalledFIFO makes a FIFO whose reader holds it open and never reads, its
// pipe at the smallest size the kernel allows, so a few KiB fill it.
func stalledFIFO(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "out")
	if err := unix.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, 4096); err != nil {
		t.Fatal(err)
	}
	return p
}

// fillBig writes 1 MiB: far more than a stalled pipe holds.
func fillBig(w io.Writer) error { _, err := w.Write(make([]byte, 1<<20)); return err }

// TestStopEndsStalledFIFOWrite is item 10 of issue 31: a FIFO whose reader
// never reads kept Write (report -o, block --output) blocked past every
// SIGTERM. The stop now ends it, whether it came during the write or
// before it (a stopped run's report), and the error carries the stop's
// cause, so the command exits as the stop says.
func TestStopEndsStalledFIFOWrite(t *testing.T) {
	defer func(w time.Duration) { stopWait = w }(stopWait)
	stopWait = 50 * time.Millisecond
	for _, before := range []bool{false, true} {
		name := map[bool]string{false: "stop during the write", true: "stopped before the write"}[before]
		t.Run(name, func(t *testing.T) {
			target, err := Check("--output", stalledFIFO(t))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			if before {
				cancel(errStopped)
			}
			var out bytes.Buffer
			done := make(chan error, 1)
			go func() {
				done <- target.Write(ctx, &out, func(w io.Writer) error {
					if !before {
						time.AfterFunc(10*time.Millisecond, func() { cancel(errStopped) })
					}
					return fillBig(w)
				})
			}()
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				t.Fatal("Write to a FIFO nobody reads did not end at the stop")
			}
			if !errors.Is(err, errStopped) || !strings.Contains(err.Error(), "took nothing") {
				t.Fatalf("Write = %v; want the stop's cause and what happened", err)
			}
			if out.Len() != 1<<20 {
				t.Errorf("standard output got %d bytes, want the whole result (%d) instead", out.Len(), 1<<20)
			}
		})
	}
}

// TestStoppedReportReachesItsReader: after the stop, a FIFO whose reader
// takes the data still gets all of it: only a write that makes no progress
// is abandoned.
func TestStoppedReportReachesItsReader(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out")
	if err := unix.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan int, 1)
	go func() {
		f, err := os.Open(p)
		if err != nil {
			got <- -1
			return
		}
		defer f.Close()
		n, _ := io.Copy(io.Discard, f)
		got <- int(n)
	}()
	target, err := Check("--output", p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errStopped)
	if err := target.Write(ctx, io.Discard, fillBig); err != nil {
		t.Fatalf("Write = %v; want the whole report written to a reader that reads", err)
	}
	if n := <-got; n != 1<<20 {
		t.Fatalf("the reader got %d bytes, want %d", n, 1<<20)
	}
}

// TestStickyFIFOOwnerRule is item 10's other half: in a sticky directory
// (/tmp), another user's FIFO is refused like their symlink there (it is
// their trap for root's report); root's own FIFO, and the directory
// owner's, are written.
func TestStickyFIFOOwnerRule(t *testing.T) {
	needRoot(t, "a FIFO owned by another user (uid 65534)")
	dir := t.TempDir()
	sticky := filepath.Join(dir, "tmp")
	theirsDir := filepath.Join(dir, "theirs")
	for _, d := range []string{sticky, theirsDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, os.ModeSticky|0o777); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(theirsDir, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	fifo := func(dir, name string, uid int) string {
		p := filepath.Join(dir, name)
		if err := unix.Mkfifo(p, 0o666); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name, path string
		refused    bool
	}{
		{"another user's FIFO in a sticky directory", fifo(sticky, "theirs", nobody), true},
		{"root's FIFO in a sticky directory", fifo(sticky, "roots", 0), false},
		{"the directory owner's FIFO", fifo(theirsDir, "owners", nobody), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			target, err := Check("--output", c.path)
			if !c.refused {
				if err != nil {
					t.Fatalf("Check(%s) = %v; want it written in place", c.path, err)
				}
				target.Close()
				return
			}
			if err == nil {
				target.Close()
				t.Fatalf("Check(%s) accepted another user's FIFO in a sticky directory", c.path)
			}
			if !result.IsUsage(err) || !strings.Contains(err.Error(), "another user's FIFO in a sticky directory") || !strings.Contains(err.Error(), "uid 65534") {
				t.Fatalf("Check(%s) = %v; want a usage error naming the owner rule", c.path, err)
			}
		})
	}
}

// TestStoppedSlowReaderIsNotCutOff: after the stop, a reader that takes
// the report slowly but steadily gets all of it; only a stopWait with
// nothing taken ends the write. The test ticks the progress check itself,
// each time after the reader took more.
func TestStoppedSlowReaderIsNotCutOff(t *testing.T) {
	p := stalledFIFO(t)
	ticks := make(chan time.Time)
	defer func(f func() (<-chan time.Time, func())) { stopTicker = f }(stopTicker)
	stopTicker = func() (<-chan time.Time, func()) { return ticks, func() {} }
	r, err := os.OpenFile(p, os.O_RDWR, 0) // a second reader, which reads; O_RDWR never sees an end
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	target, err := Check("--output", p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errStopped)
	done := make(chan error, 1)
	go func() { done <- target.Write(ctx, io.Discard, fillBig) }()
	buf := make([]byte, 16<<10)
	total := 0
	for {
		n, err := io.ReadFull(r, buf)
		total += n
		if err != nil {
			break
		}
		select {
		case ticks <- time.Now(): // 16 KiB taken since the last tick
		case err := <-done:
			done <- err
		}
		if total == 1<<20 {
			break
		}
	}
	if err := <-done; err != nil || total != 1<<20 {
		t.Fatalf("Write = %v after the reader took %d of %d bytes; a reader that reads is never cut off", err, total, 1<<20)
	}
}
