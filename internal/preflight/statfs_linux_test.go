package preflight

import (
	"path/filepath"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
)

func TestStatLive(t *testing.T) {
	s, err := Stat(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if s.AvailBytes == 0 || s.AvailBytes > s.FreeBytes || s.FreeBytes > s.TotalBytes {
		t.Errorf("Stat = %+v, want 0 < avail <= free <= total", s)
	}
	if s.InodesKnown != (s.TotalInodes != 0) || (s.InodesKnown && s.FreeInodes > s.TotalInodes) {
		t.Errorf("Stat inode counts inconsistent: %+v", s)
	}
	if _, err := Stat(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("Stat of a missing path succeeded")
	}
}

// TestStatSmallExt4: on a 16 MiB ext4 the figures are its own, the same by
// path and through a descriptor, and ext4's reserve for root makes free
// more than avail.
func TestStatSmallExt4(t *testing.T) {
	dev, _ := clydetest.LoopDevice(t, 16<<20)
	mnt := clydetest.MountExt4(t, dev)
	s, err := Stat(mnt)
	if err != nil {
		t.Fatal(err)
	}
	if !s.InodesKnown || s.FreeInodes == 0 || s.AvailBytes == 0 || s.TotalBytes > 16<<20 || s.FreeBytes <= s.AvailBytes {
		t.Errorf("Stat on a 16 MiB ext4 = %+v, want known inodes, free space within 16 MiB and a reserve", s)
	}
	d, err := osio.OpenDir(mnt)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if byFd, err := StatDir(d); err != nil || byFd != s {
		t.Errorf("StatDir = %+v, %v; want %+v as by path", byFd, err, s)
	}
}

func TestUsedBytes(t *testing.T) {
	for _, c := range []struct {
		s    FS
		want uint64
	}{
		{FS{TotalBytes: 1000, FreeBytes: 900, AvailBytes: 880}, 100},
		{FS{TotalBytes: 1000, FreeBytes: 1200}, 0}, // a figure past the size never wraps
	} {
		if got := c.s.UsedBytes(); got != c.want {
			t.Errorf("%+v: used %d, want %d", c.s, got, c.want)
		}
	}
}
