package rundir

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
)

// TestCleanupFailureKeepsMarker: when the data file cannot be removed the
// marker stays, so the cleanup can be run again.
func TestCleanupFailureKeepsMarker(t *testing.T) {
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "needs root: making a file immutable (chattr +i) is how its removal is made to fail")
	}
	dir := t.TempDir()
	path := leftover(t, dir, "f", nil)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	const immutable = 0x10 // FS_IMMUTABLE_FL, linux/fs.h
	setFlags := func(on bool) error {
		flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
		if err != nil {
			return err
		}
		if on {
			flags |= immutable
		} else {
			flags &^= immutable
		}
		return unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags))
	}
	if err := setFlags(true); err != nil {
		f.Close()
		clydetest.Skipf(t, "this filesystem cannot make a file immutable: %v", err)
	}
	_, err = CleanupFile(dir, "f", path, false)
	if uerr := setFlags(false); uerr != nil {
		t.Fatal(uerr)
	}
	f.Close()
	if err == nil || !strings.Contains(err.Error(), "the marker is kept") {
		t.Fatalf("err = %v, want the failed removal reported", err)
	}
	if got := entries(t, dir); strings.Join(got, ",") != ".f.clyde-run,f" {
		t.Fatalf("left %v, want the file and its marker", got)
	}
	res, err := CleanupFile(dir, "f", path, false)
	if err != nil || len(res.Removed) != 2 {
		t.Fatalf("second cleanup: %+v, %v", res, err)
	}
}
