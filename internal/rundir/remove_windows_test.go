//go:build windows

package rundir

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/clydebench/clyde/internal/osio"
)

// TestRemoveWhileMarkerReadWindows removes a run while another process
// would be reading its marker (a clyde refused by the run lock names the
// holder from it): the marker is then delete pending, not gone, wherever
// Windows deletes with the old semantics (FAT, and Wine, whose runs left
// their private directory 1 time in 3 on a busy machine, issue 20 case
// 16). Remove must wait for that handle, not fail on a directory that is
// not empty yet. With POSIX delete semantics (NTFS on Windows 10 1607 and
// later) the marker's name goes at once and this passes either way.
func TestRemoveWhileMarkerReadWindows(t *testing.T) {
	// Not t.TempDir: Go's os.RemoveAll fails under Wine (osio's works).
	dir, err := os.MkdirTemp("", "clyde-rundir-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p, err := osio.OpenDir(filepath.Dir(dir)); err == nil {
			_ = p.RemoveAll(osio.Name(filepath.Base(dir)))
			p.Close()
		}
	})
	r, err := Create(openParent(t, dir), "clyde fs -d x")
	if err != nil {
		t.Fatal(err)
	}
	marker, err := windows.UTF16PtrFromString(filepath.Join(r.Path, MarkerName))
	if err != nil {
		t.Fatal(err)
	}
	// As another reader opens it: sharing read, write and delete.
	h, err := windows.CreateFile(marker, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() {
		time.Sleep(300 * time.Millisecond)
		windows.CloseHandle(h)
		close(closed)
	}()
	start := time.Now()
	err = r.Remove()
	t.Logf("Remove took %v", time.Since(start))
	<-closed
	if err != nil {
		t.Fatalf("remove while the marker was open elsewhere: %v", err)
	}
	if _, err := os.Lstat(r.Path); !os.IsNotExist(err) {
		entries, rerr := os.ReadDir(r.Path)
		t.Fatalf("%s is still there (%v), holding %v (%v)", r.Path, err, entries, rerr)
	}
}
