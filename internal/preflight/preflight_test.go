package preflight

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/result"
)

func TestDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path string
		usage      bool // a *result.UsageError naming the flag
		ok         bool
	}{
		{"directory", dir, false, true},
		{"missing", filepath.Join(dir, "nope"), true, false},
		{"file", file, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Dir("-d", c.path)
			if c.ok != (err == nil) {
				t.Fatalf("Dir(%s) = %v", c.path, err)
			}
			if c.usage && !result.IsUsage(err) {
				t.Errorf("Dir(%s) = %v, want a usage error", c.path, err)
			}
			if err != nil && (!strings.Contains(err.Error(), "-d") || strings.Contains(err.Error(), "\n")) {
				t.Errorf("Dir(%s) = %q: want one line naming -d", c.path, err)
			}
		})
	}
}

// TestDirOnKernelFS: a directory of procfs, sysfs or cgroupfs is no test
// directory. In cgroupfs a private directory is a new control group, which
// the run could not remove after it failed to write its marker there.
func TestDirOnKernelFS(t *testing.T) {
	for _, dir := range []string{"/proc", "/proc/sys", "/sys/kernel"} {
		if _, err := os.Stat(dir); err != nil || safepath.KernelFS(dir) == "" {
			continue // not Linux, or not mounted here
		}
		err := Dir("-d", dir)
		if !result.IsUsage(err) || !strings.Contains(err.Error(), "a kernel interface, not a filesystem to test") {
			t.Errorf("Dir(%s) = %v, want a usage error saying it is a kernel interface", dir, err)
		}
	}
}

func TestSpace(t *testing.T) {
	dir := t.TempDir()
	advice := Advice{Space: "use less", Inodes: "use fewer"}
	if err := Space(dir, "the run", dir, Need{Bytes: 1, Inodes: 1}, advice); err != nil {
		t.Errorf("one byte and one inode refused: %v", err)
	}
	err := Space(dir, "the run", dir, Need{Bytes: 1 << 62}, advice)
	if err == nil || !strings.Contains(err.Error(), "the run needs 4.0 EiB in "+dir) || !strings.HasSuffix(err.Error(), "; use less") {
		t.Errorf("4 EiB: %v", err)
	}
	if !result.IsUsage(err) {
		t.Errorf("4 EiB: %v is not a usage error, so it would exit 1 where refusals exit 2", err)
	}
	err = Space(dir, "the run", dir, Need{Inodes: 1 << 62}, advice)
	if err != nil && !strings.HasSuffix(err.Error(), "; use fewer") {
		t.Errorf("2^62 inodes: %v", err) // nil where the filesystem gives no inode figures
	}
}
