//go:build !linux && !darwin && !freebsd && !windows

package sysinfo

import "github.com/clydebench/clyde/result"

// Space is not implemented here; callers skip the free-space check.
func Space(path string) (SpaceInfo, error) { return SpaceInfo{}, result.ErrNotSupported }
