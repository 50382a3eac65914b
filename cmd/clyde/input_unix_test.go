//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// runClydeBounded is runClyde that fails the test when the command has not
// returned in a minute: reading a FIFO's open blocks forever, and that is
// the bug these tests look for.
func runClydeBounded(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	type ran struct {
		code           int
		stdout, stderr string
	}
	done := make(chan ran, 1)
	go func() {
		code, out, errOut := runClyde(t, args...)
		done <- ran{code, out, errOut}
	}()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr
	case <-time.After(time.Minute):
		t.Fatalf("clyde %s did not return: blocked on a FIFO?", strings.Join(args, " "))
		panic("unreachable")
	}
}

// TestNamedInputFIFOIsRefused is case 8 of issue 20: every input named by
// the user, when it is a FIFO with no writer, is refused in one line with
// exit 2 at once; before internal/input each of these blocked in open(2).
func TestNamedInputFIFOIsRefused(t *testing.T) {
	mkfifo := func(t *testing.T, p string) string {
		t.Helper()
		if err := unix.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name string
		args func(t *testing.T, dir string) []string
		want string
	}{
		{"job file", func(t *testing.T, dir string) []string {
			return []string{"block", mkfifo(t, filepath.Join(dir, "job.fio"))}
		}, "is a FIFO, not a regular file"},
		{"include", func(t *testing.T, dir string) []string {
			mkfifo(t, filepath.Join(dir, "inc.fio"))
			job := filepath.Join(dir, "job.fio")
			if err := os.WriteFile(job, []byte("[a]\nfilename="+filepath.Join(dir, "f")+"\nsize=1m\ninclude inc.fio\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			return []string{"block", job}
		}, "job.fio:4: include"},
		{"Iometer .icf", func(t *testing.T, dir string) []string {
			return []string{"iometer", mkfifo(t, filepath.Join(dir, "t.icf")), "--filename", filepath.Join(dir, "f")}
		}, "is a FIFO, not a regular file"},
		{"fs -Z", func(t *testing.T, dir string) []string {
			return []string{"fs", "-d", dir, "-s", "0", "-n", "1", "-Z", mkfifo(t, filepath.Join(dir, "seeds"))}
		}, "-Z: "},
		{"ORION .lun", func(t *testing.T, dir string) []string {
			mkfifo(t, filepath.Join(dir, "t.lun"))
			return []string{"orion", "-run", "simple", "-testname", filepath.Join(dir, "t")}
		}, "is a FIFO, not a regular file"},
		{"report input", func(t *testing.T, dir string) []string {
			return []string{"report", mkfifo(t, filepath.Join(dir, "r.json"))}
		}, "is a FIFO, not a regular file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runClydeBounded(t, tc.args(t, t.TempDir())...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "FIFO") || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want exit 2 and one line naming the FIFO with %q", code, stderr, tc.want)
			}
		})
	}
}

// TestReportOutputFIFONoReaderDoesNotHang: report -o FIFO with nobody
// reading the FIFO returns (written or refused) instead of blocking in
// open(2). Which of the two is the output rules' choice (internal/outfile).
func TestReportOutputFIFONoReaderDoesNotHang(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "out")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runClydeBounded(t, "report", "../../testdata/compare/bonnie-2.00a-ext4.txt", "-o", fifo)
	if code == exitOK || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q; want a one-line failure (no reader)", code, stderr)
	}
}

// TestUnboundedRunTimesRefused is case 10 of issue 20: run times that
// crashed (a mark slice for the whole run, an overflow) are refused in one
// line, and nothing is created.
func TestUnboundedRunTimesRefused(t *testing.T) {
	cases := []struct {
		name string
		args func(dir string) []string
		flag string
	}{
		{"block --runtime 100000h", func(dir string) []string {
			return []string{"block", "--filename", filepath.Join(dir, "F"), "--size", "1MiB", "--rw", "randread", "--runtime", "100000h", "--no-history"}
		}, "--runtime"},
		{"orion -duration 99999999999", func(dir string) []string {
			return []string{"orion", "-run", "simple", "-testname", filepath.Join(dir, "t"), "-duration", "99999999999"}
		}, "-duration"},
		{"orion -num_disks 1000000000", func(dir string) []string {
			return []string{"orion", "-run", "simple", "-testname", filepath.Join(dir, "t"), "-num_disks", "1000000000"}
		}, "-num_disks"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "t.lun"), []byte(filepath.Join(dir, "lun")+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "lun"), make([]byte, 1<<20), 0o600); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runClydeBounded(t, tc.args(dir)...)
			if code != exitUsage || !strings.Contains(stderr, tc.flag) || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want exit 2 and one line naming %s", code, stderr, tc.flag)
			}
			if es, _ := os.ReadDir(dir); len(es) != 2 {
				t.Fatalf("the refused run created files: %v", es)
			}
		})
	}
}
