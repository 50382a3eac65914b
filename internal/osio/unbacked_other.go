//go:build !linux

package osio

import (
	"fmt"
	"runtime"

	"github.com/clydebench/clyde/result"
)

// Unbacked cannot look for holes and unwritten extents here; the caller
// records that the target was not checked.
func Unbacked(f File, size int64) (int64, error) { return UnbackedRange(f, 0, size) }

// UnbackedRange cannot look either.
func UnbackedRange(File, int64, int64) (int64, error) {
	return 0, fmt.Errorf("finding holes and unwritten extents on %s: %w", runtime.GOOS, result.ErrNotSupported)
}
