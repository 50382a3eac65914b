//go:build linux

package osio

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
)

// TestSectorSizeOnLinux reads the O_DIRECT alignment of a file, of the
// directory a new file would go in, and of the disk they are on: each is a
// sector size (a power of two from 512), and the directory's is the disk's.
func TestSectorSizeOnLinux(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, make([]byte, 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, dir} {
		si, err := SectorSize(p)
		if err != nil {
			clydetest.Skipf(t, "%s: %v (no block device beneath?)", p, err)
		}
		if !si.Known() || si.Source == "" {
			t.Errorf("%s: %+v, want a known sector size and where it came from", p, si)
		}
		if err := si.CheckDirectAlign(si.Required(), 0); err != nil {
			t.Errorf("%s: one sector refused: %v", p, err)
		}
		if si.Required() > 512 {
			if err := si.CheckDirectAlign(512, 0); err == nil {
				t.Errorf("%s: 512 bytes accepted on %s", p, si)
			}
		}
	}
}
