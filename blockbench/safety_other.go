//go:build !linux && !windows

package blockbench

import (
	"fmt"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// checkDeviceWrite: the mount, swap and holder checks are written for Linux
// only, so writing to a block device elsewhere is refused outright.
func checkDeviceWrite(given, resolved string, destroy bool) (osio.File, error) {
	return osio.NoFile, fmt.Errorf("writing to block device %s: the safety checks are Linux-only: %w", resolved, result.ErrNotSupported)
}

// checkFileWrite: whether a file backs a mounted disk image or is open for
// writing by another program is checked on Linux only, so writing to an
// existing file elsewhere is refused outright; a file clyde creates is
// written freely.
func checkFileWrite(given, resolved string, e osio.Entry, destroy bool) error {
	return fmt.Errorf("writing to existing file %s: the in-use checks (disk images, other writers) are Linux-only; "+
		"name a path that does not exist yet: %w", resolved, result.ErrNotSupported)
}
