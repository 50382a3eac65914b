//go:build !linux

package osio

import (
	"runtime"

	"github.com/clydebench/clyde/result"
)

// EvictDevice is not available here.
func EvictDevice(string, int64) result.CacheState {
	return result.CacheState{ResidentBytes: -1, Error: "device page-cache eviction is not supported on " + runtime.GOOS}
}
