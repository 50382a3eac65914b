//go:build linux

package input

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
)

// TestKernelFilesAreNoInput is item 12 of issue 31: /proc/kmsg is a
// regular file of size 0 whose read blocks until the kernel logs a line
// (and takes that line from the system log); it, a sysfs attribute and a
// symlink to either are refused by the name, before anything is opened.
func TestKernelFilesAreNoInput(t *testing.T) {
	link := filepath.Join(t.TempDir(), "kmsg-link")
	if err := os.Symlink("/proc/kmsg", link); err != nil {
		t.Fatal(err)
	}
	orig := Open
	Open = func(path string) (*os.File, error) {
		t.Errorf("%s was opened; a kernel file is refused before the open", path)
		return orig(path)
	}
	defer func() { Open = orig }()
	for _, tc := range []struct{ path, fs string }{
		{"/proc/kmsg", "procfs"},
		{link, "procfs"},
		{"/proc/self/status", "procfs"},
		{"/sys/kernel/notes", "sysfs"},
	} {
		if _, err := os.Stat(tc.path); err != nil {
			t.Logf("%s: %v; skipped", tc.path, err)
			continue
		}
		_, err := finish(t, func() readResult { d, err := ReadFile(context.Background(), tc.path, 0); return readResult{d, err} }).unpack()
		if !IsRefused(err) || !strings.Contains(err.Error(), "a file of "+tc.fs+", a kernel interface") {
			t.Errorf("%s: err = %v; want a refusal naming %s", tc.path, err, tc.fs)
		}
	}
}

// TestKernelFileOpenedIsRefused: the opened descriptor is looked at too, so
// a name that led to a file when it was checked and to procfs when it was
// opened is refused all the same, before it is read.
func TestKernelFileOpenedIsRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	orig := Open
	Open = func(string) (*os.File, error) { return orig("/proc/self/stat") }
	defer func() { Open = orig }()
	_, err := ReadFile(context.Background(), p, 0)
	if !IsRefused(err) || !strings.Contains(err.Error(), "procfs") {
		t.Fatalf("err = %v; want a refusal naming procfs", err)
	}
}

type readResult struct {
	data []byte
	err  error
}

func (r readResult) unpack() ([]byte, error) { return r.data, r.err }

// TestKernelFileOnStandardInput: `clyde report - < /proc/kmsg` is the same
// kernel file on standard input; it is refused before it is read, not left
// blocking until the kernel logs a line.
func TestKernelFileOnStandardInput(t *testing.T) {
	f, err := os.Open("/proc/self/stat")
	if err != nil {
		clydetest.Skipf(t, "no procfs here: %v", err)
	}
	defer f.Close()
	_, err = ReadAll(context.Background(), "- (standard input)", f, 0)
	if !IsRefused(err) || !strings.Contains(err.Error(), "- (standard input) is a file of procfs, a kernel interface") {
		t.Fatalf("err = %v; want a refusal naming procfs", err)
	}
	p := filepath.Join(t.TempDir(), "result.json")
	if err := os.WriteFile(p, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	g, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if b, err := ReadAll(context.Background(), "- (standard input)", g, 0); err != nil || string(b) != "{}" {
		t.Fatalf("a result file on standard input: %q, %v", b, err)
	}
}
