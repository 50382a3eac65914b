//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
)

// TestKernelFileInputsRefused is item 12 of issue 31: `clyde block
// /proc/kmsg`, `include /proc/kmsg` in a job file, /proc/kmsg as a target,
// a report input and an -Z file each blocked in read(2) (or measured a
// kernel interface); each is refused in one line, exit 2.
func TestKernelFileInputsRefused(t *testing.T) {
	if _, err := os.Stat("/proc/kmsg"); err != nil {
		clydetest.Skipf(t, "no /proc/kmsg: %v", err)
	}
	for _, tc := range []struct {
		name string
		args func(dir string) []string
	}{
		{"job file", func(string) []string { return []string{"block", "/proc/kmsg"} }},
		{"include", func(dir string) []string {
			job := filepath.Join(dir, "job.fio")
			if err := os.WriteFile(job, []byte("[a]\nfilename="+filepath.Join(dir, "f")+"\nsize=1m\ninclude /proc/kmsg\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			return []string{"block", job}
		}},
		{"target", func(string) []string {
			return []string{"block", "--filename", "/proc/kmsg", "--rw", "read", "--size", "4k", "--no-history"}
		}},
		{"report input", func(string) []string { return []string{"report", "/proc/kmsg"} }},
		{"fs -Z", func(dir string) []string { return []string{"fs", "-d", dir, "-s", "0", "-n", "1", "-Z", "/proc/kmsg"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			code, _, stderr := runClydeBounded(t, tc.args(dir)...)
			if code != exitUsage || !strings.Contains(stderr, "/proc/kmsg is a file of procfs, a kernel interface") || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want exit 2 and one line naming procfs", code, stderr)
			}
		})
	}
}
