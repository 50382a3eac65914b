//go:build linux

package osio

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestUnbacked: a file of 1 MiB written, 1 MiB fallocated (unwritten) and
// 2 MiB of hole has 3 MiB a read would not fetch from the device; a fully
// written file none. On tmpfs (no FIEMAP) the holes are still found.
func TestUnbacked(t *testing.T) {
	const mib = 1 << 20
	dirs := map[string]string{"test dir": t.TempDir()}
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "clyde-unbacked-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			dirs["tmpfs"] = d
		}
	}
	for name, dir := range dirs {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, "lun")
			if err := os.WriteFile(path, make([]byte, mib), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := OpenFile(path, ReadWrite)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if n, err := Unbacked(f, mib); err != nil || n != 0 {
				t.Fatalf("written file: %d unbacked, %v", n, err)
			}
			wantUnwritten := int64(mib)
			if err := unix.Fallocate(f.sysfd(), 0, mib, mib); err != nil {
				t.Logf("fallocate: %v; the unwritten extent is left out", err)
				wantUnwritten = 0
			}
			if err := unix.Ftruncate(f.sysfd(), 4*mib); err != nil {
				t.Fatal(err)
			}
			n, err := Unbacked(f, 4*mib)
			if err != nil {
				t.Fatal(err)
			}
			// tmpfs's SEEK_DATA counts fallocated pages never written as hole.
			if want := 2*mib + wantUnwritten; n != want {
				t.Errorf("Unbacked = %d, want %d", n, want)
			}
		})
	}
}
