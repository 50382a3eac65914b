//go:build linux

package osio

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
)

// TestEvictionIsCountedByMincore checks that Cold comes from the pages
// mincore finds, without root: tmpfs keeps a file's pages whatever
// posix_fadvise asks, so a file there is never cold after eviction, and a
// file on a disk filesystem, written back and dropped, is.
func TestEvictionIsCountedByMincore(t *testing.T) {
	const size = 1 << 20
	cases := []struct {
		name string
		dir  string
		cold bool
	}{
		{"tmpfs keeps its pages", "/dev/shm", false},
		{"a disk filesystem drops them", t.TempDir(), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var st unix.Statfs_t
			if err := unix.Statfs(tc.dir, &st); err != nil {
				clydetest.Skipf(t, "%s: %v", tc.dir, err)
			}
			if isTmpfs := st.Type == unix.TMPFS_MAGIC; isTmpfs == tc.cold {
				clydetest.Skipf(t, "%s is not the filesystem this case needs (tmpfs: %v)", tc.dir, isTmpfs)
			}
			dir, err := os.MkdirTemp(tc.dir, "clyde-evict")
			if err != nil {
				clydetest.Skipf(t, "cannot write in %s: %v", tc.dir, err)
			}
			defer os.RemoveAll(dir)
			path := filepath.Join(dir, "f")
			if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := OpenFile(path, ReadOnly)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cs := EvictPageCache(f, size)
			if cs.Error != "" || !cs.Evicted {
				t.Fatalf("eviction: %+v", cs)
			}
			if cs.Cold != tc.cold {
				t.Errorf("cold = %v with %d of %d bytes resident, want %v", cs.Cold, cs.ResidentBytes, size, tc.cold)
			}
			if !tc.cold && cs.ResidentBytes != size {
				t.Errorf("tmpfs: %d of %d bytes resident, want all", cs.ResidentBytes, size)
			}
		})
	}
}
