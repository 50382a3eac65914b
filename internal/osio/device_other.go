//go:build !windows && !linux

package osio

import "github.com/clydebench/clyde/result"

// SectorSize is read on Windows and Linux only, where uncached I/O is held to it; the
// callers keep their own rule (O_DIRECT's 512 bytes, fs -D's 4 KiB).
func SectorSize(string) (SectorInfo, error) { return SectorInfo{}, result.ErrNotSupported }
