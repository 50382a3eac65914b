//go:build !linux && !windows

package admit

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// Write: the mount, swap, holder and loop checks read Linux's records
// only, so writing to a block device or an existing file elsewhere is
// refused outright; a file clyde creates is written freely.
func Write(given, resolved string, _ osio.File, e osio.Entry, destroy bool) (osio.File, error) {
	if e.Dev {
		return osio.NoFile, fmt.Errorf("writing to block device %s: the safety checks are Linux-only: %w", resolved, result.ErrNotSupported)
	}
	return osio.NoFile, fmt.Errorf("writing to existing file %s: the in-use checks (disk images, other writers) are Linux-only; "+
		"name a path that does not exist yet: %w", resolved, result.ErrNotSupported)
}

// NewFile refuses a file created in /dev (devfs on the BSDs and macOS),
// where a mistyped device name would become a file.
func NewFile(given, dir string) error {
	dir = filepath.Clean(dir)
	if dir == "/dev" || strings.HasPrefix(dir, "/dev/") {
		return result.Usagef("--filename", "%s does not exist, and clyde does not create files in %s, which holds device nodes; "+
			"check the device name, or give a path on a filesystem", given, dir)
	}
	return nil
}
