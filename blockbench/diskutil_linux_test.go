//go:build linux

package blockbench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"

	"golang.org/x/sys/unix"
)

// TestDiskUtil: a file on a disk gets fio's disk_util for that disk, with
// the writes it took.
func TestDiskUtil(t *testing.T) {
	dir := t.TempDir()
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		t.Fatal(err)
	}
	sys := fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev))
	if _, err := os.Stat(sys); unix.Major(st.Dev) == 0 || err != nil {
		clydetest.Skipf(t, "the temp dir %s is on no block device (%s)", dir, sys)
	}
	j := NewJob(filepath.Join(dir, "f"))
	j.RW, j.Size, j.Runtime, j.Fsync = Write, 4<<20, 100*time.Millisecond, 8
	j.CommandLine = []string{"clyde"}
	res, err := Run(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.DiskUtil) == 0 {
		t.Fatalf("%s is on %s, and disk_util is empty", dir, sys)
	}
	d := res.DiskUtil[0]
	if d.Name == "" || d.WriteIOs == 0 || d.Util < 0 || d.Util > 100 {
		t.Errorf("disk_util %+v: fsynced writes reached the disk, and it counted none", d)
	}
}
