//go:build !linux && !darwin && !freebsd && !windows

package sysinfo

import (
	"github.com/clydebench/clyde/result"
)

// FilesystemOf is not implemented here; the result records only the path.
func FilesystemOf(path string) (result.Filesystem, error) {
	return result.Filesystem{Path: path}, result.ErrNotSupported
}
