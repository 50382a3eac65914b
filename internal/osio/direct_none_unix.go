//go:build unix && !linux && !freebsd && !darwin

package osio

import (
	"fmt"
	"runtime"

	"github.com/clydebench/clyde/result"
)

func directOpenFlag() (int, error) {
	return 0, fmt.Errorf("uncached (direct) I/O on %s: %w", runtime.GOOS, result.ErrNotSupported)
}

func afterDirectOpen(int) error { return nil }

// DirectSupported says whether Direct opens can work here.
const DirectSupported = false
