//go:build !linux && !darwin && !freebsd && !windows

package sysinfo

import "github.com/clydebench/clyde/result"

// RAM is not implemented here; callers must be given a size explicitly.
func RAM() (RAMInfo, error) { return RAMInfo{}, result.ErrNotSupported }
