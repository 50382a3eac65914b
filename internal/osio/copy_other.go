//go:build !linux

package osio

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/clydebench/clyde/result"
)

// CopyFileRange is Linux's copy_file_range(2); elsewhere it is not available.
func CopyFileRange(_, _ File, _ int) (int, error) {
	return 0, fmt.Errorf("copy_file_range on %s: %w", runtime.GOOS, result.ErrNotSupported)
}

// Clone is Linux's FICLONE; elsewhere it is not available.
func Clone(_, _ File) error {
	return fmt.Errorf("FICLONE on %s: %w", runtime.GOOS, result.ErrNotSupported)
}

// CannotCopy says whether err means the platform cannot do it at all.
func CannotCopy(err error) (string, bool) {
	if errors.Is(err, result.ErrNotSupported) {
		return "not available on " + runtime.GOOS, true
	}
	return "", false
}

// AdviseSequential has no equivalent here.
func AdviseSequential(File) {}

// SharedExtents cannot be checked here (no FIEMAP).
func SharedExtents(File) (bool, error) {
	return false, fmt.Errorf("FIEMAP on %s: %w", runtime.GOOS, result.ErrNotSupported)
}
