package blockbench

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/clydebench/clyde/internal/osio"
)

// testDir is t.TempDir, except on Windows, where it is removed entry by
// entry through osio: under Wine 8 Go's os.RemoveAll fails on any
// directory with something in it, and these tests run there too.
func testDir(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "windows" {
		return t.TempDir()
	}
	p, err := os.MkdirTemp("", "blockbench")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		parent, err := osio.OpenDir(filepath.Dir(p))
		if err != nil {
			t.Error(err)
			return
		}
		defer parent.Close()
		if err := parent.RemoveAll(osio.Name(filepath.Base(p))); err != nil {
			t.Errorf("remove %s: %v", p, err)
		}
	})
	return p
}
