//go:build !linux

package osio

import (
	"runtime"

	"github.com/clydebench/clyde/result"
)

// EvictPageCache is not available here: the result records that reads may
// have come from the page cache.
func EvictPageCache(_ File, fileBytes int64) result.CacheState {
	return result.CacheState{FileBytes: fileBytes, ResidentBytes: -1,
		Error: "page-cache eviction is not supported on " + runtime.GOOS}
}
