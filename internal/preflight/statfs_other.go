//go:build !linux && !darwin && !freebsd && !windows

package preflight

import (
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// Stat is not implemented here; callers skip the free-space check.
func Stat(string) (FS, error) { return FS{}, result.ErrNotSupported }

// StatDir is not implemented here either.
func StatDir(osio.Dir) (FS, error) { return FS{}, result.ErrNotSupported }
