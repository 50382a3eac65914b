//go:build linux

package rundir

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
)

// TestCreateRefusesKernelFS: no private directory is made on a kernel
// interface. There a directory is something else (in cgroupfs a new
// control group, whose files no unlink removes, so a run that failed to
// write its marker left it behind). A bpf filesystem of the test's own
// stands for them: it takes a mkdir and refuses files, as cgroupfs does.
func TestCreateRefusesKernelFS(t *testing.T) {
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "mounting a bpf filesystem needs root")
	}
	dir := t.TempDir()
	if err := unix.Mount("bpf", dir, "bpf", 0, ""); err != nil {
		clydetest.Skipf(t, "no bpf filesystem here: %v", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
	before, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	parent, err := osio.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Close()
	r, err := Create(parent, "clyde test")
	if err == nil {
		_ = r.Remove()
		t.Fatal("a private directory was made on a bpf filesystem")
	}
	if !strings.Contains(err.Error(), "it is on a kernel filesystem, a kernel interface") {
		t.Errorf("err = %v, want the kernel interface named", err)
	}
	if after, _ := os.ReadDir(dir); len(after) != len(before) {
		t.Errorf("%d entries in the bpf filesystem after the refusal, %d before", len(after), len(before))
	}
}
