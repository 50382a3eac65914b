//go:build !linux

package blockbench

import (
	"fmt"
	"io"

	"github.com/clydebench/clyde/result"
)

// checkDeviceWrite: the mount, swap and holder checks are written for Linux
// only, so writing to a block device elsewhere is refused outright.
func checkDeviceWrite(given, resolved string, destroy bool) (io.Closer, error) {
	return nil, fmt.Errorf("writing to block device %s: the safety checks are Linux-only: %w", resolved, result.ErrNotSupported)
}
